package sandbox

import "slices"

// trackingEvent is one analytics event of a tracking plan.
type trackingEvent struct {
	Name    string         `json:"name"`
	Trigger string         `json:"trigger"`
	Payload []payloadField `json:"payload"`
}

type payloadField struct {
	Field    string `json:"field"`
	Type     string `json:"type"`
	Required bool   `json:"required"`
}

// trackingEvents is the project's tracking plan, in plan order.
var trackingEvents = []trackingEvent{
	{Name: "page_view", Trigger: "page load", Payload: []payloadField{
		{Field: "page_path", Type: "string", Required: true}, {Field: "page_title", Type: "string"}}},
	{Name: "view_item", Trigger: "product page load", Payload: []payloadField{
		{Field: "currency", Type: "string", Required: true}, {Field: "value", Type: "number", Required: true},
		{Field: "items[].item_id", Type: "string", Required: true}}},
	{Name: "add_to_cart", Trigger: "click on Add to cart", Payload: []payloadField{
		{Field: "currency", Type: "string", Required: true}, {Field: "value", Type: "number", Required: true},
		{Field: "items[].item_id", Type: "string", Required: true}, {Field: "items[].quantity", Type: "number", Required: true}}},
	{Name: "search", Trigger: "search form submit", Payload: []payloadField{
		{Field: "search_term", Type: "string", Required: true}}},
	{Name: "select_item", Trigger: "click on a result", Payload: []payloadField{
		{Field: "item_list_name", Type: "string"}, {Field: "items[].item_id", Type: "string", Required: true}}},
	{Name: "begin_checkout", Trigger: "checkout page load", Payload: []payloadField{
		{Field: "currency", Type: "string", Required: true}, {Field: "value", Type: "number", Required: true}}},
	{Name: "purchase", Trigger: "order confirmation", Payload: []payloadField{
		{Field: "transaction_id", Type: "string", Required: true}, {Field: "value", Type: "number", Required: true},
		{Field: "payment_type", Type: "string"}}},
	{Name: "login", Trigger: "successful sign-in", Payload: []payloadField{
		{Field: "method", Type: "string", Required: true}}},
	{Name: "select_promotion", Trigger: "click on the hero banner", Payload: []payloadField{
		{Field: "promotion_id", Type: "string", Required: true}, {Field: "creative_slot", Type: "string"}}},
	{Name: "select_content", Trigger: "click on the scripted element", Payload: []payloadField{
		{Field: "content_type", Type: "string", Required: true}, {Field: "item_id", Type: "string"}}},
}

// eventsNamed returns the plan's events with the given names, in plan order.
func eventsNamed(names []string) []trackingEvent {
	var events []trackingEvent
	for _, e := range trackingEvents {
		if slices.Contains(names, e.Name) {
			events = append(events, e)
		}
	}
	return events
}
