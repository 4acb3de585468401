package sandbox

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// scenario is an FRT (functional) scenario and the tracking events its
// steps should fire.
type scenario struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	StartPath string `json:"startPath"`

	events []string // names in trackingEvents
}

// scenarioStore holds the seeded scenarios and those created through
// create_frt_scenario.
type scenarioStore struct {
	mu      sync.RWMutex
	list    []scenario
	created int
}

func seedScenarios() *scenarioStore {
	return &scenarioStore{list: []scenario{
		{ID: "scn_add_to_cart", Name: "Add a product to the cart from the product page", StartPath: "/products/trail-runner",
			events: []string{"page_view", "view_item", "add_to_cart"}},
		{ID: "scn_checkout_guest", Name: "Guest checkout with card payment", StartPath: "/checkout",
			events: []string{"page_view", "begin_checkout", "purchase"}},
		{ID: "scn_search", Name: "Search for a product and open the first result", StartPath: "/",
			events: []string{"page_view", "search", "select_item"}},
		{ID: "scn_login", Name: "Log in with email and password", StartPath: "/login",
			events: []string{"page_view", "login"}},
		{ID: "scn_homepage_smoke", Name: "Homepage smoke: load and click the hero banner", StartPath: "/",
			events: []string{"page_view", "select_promotion"}},
	}}
}

func (st *scenarioStore) get(id string) (scenario, bool) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	i := slices.IndexFunc(st.list, func(s scenario) bool { return s.ID == id })
	if i < 0 {
		return scenario{}, false
	}
	return st.list[i], true
}

func (st *scenarioStore) ids() []string {
	st.mu.RLock()
	defer st.mu.RUnlock()
	ids := make([]string, len(st.list))
	for i, s := range st.list {
		ids[i] = s.ID
	}
	return ids
}

// scenarioMatch is a search hit: the scenario and how many query words it
// shares.
type scenarioMatch struct {
	scenario
	Score int `json:"score"`
}

// find ranks scenarios by the query words their name and start path share,
// best first, ties in creation order; scenarios sharing none are left out.
func (st *scenarioStore) find(query string) []scenarioMatch {
	st.mu.RLock()
	defer st.mu.RUnlock()
	return st.rank(words(query))
}

// rank is find with st.mu held.
func (st *scenarioStore) rank(want map[string]bool) []scenarioMatch {
	matches := []scenarioMatch{}
	for _, s := range st.list {
		have := words(s.Name + " " + s.StartPath)
		score := 0
		for w := range want {
			if have[w] {
				score++
			}
		}
		if score > 0 {
			matches = append(matches, scenarioMatch{scenario: s, Score: score})
		}
	}
	slices.SortStableFunc(matches, func(a, b scenarioMatch) int { return cmp.Compare(b.Score, a.Score) })
	return matches
}

// resolveOrAdd is create_frt_scenario's resolve-first: the scenario that
// already covers goal, or the one newScenario makes, added under its new id. Both happen under
// one lock, so the same goal sent twice at once creates one scenario.
func (st *scenarioStore) resolveOrAdd(goal string, newScenario func(id string) (scenario, error)) (s scenario, existing bool, err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if s, ok := st.coveringLocked(goal); ok {
		return s, true, nil
	}
	s, err = newScenario(fmt.Sprintf("scn_%d", 101+st.created))
	if err != nil {
		return scenario{}, false, err
	}
	st.created++
	st.list = append(st.list, s)
	return s, false, nil
}

// covering is the scenario that covers goal, as create_frt_scenario
// resolves it: at least two words, and three in five of the goal's.
func (st *scenarioStore) covering(goal string) (scenario, bool) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	return st.coveringLocked(goal)
}

// coveringLocked is covering with st.mu held.
func (st *scenarioStore) coveringLocked(goal string) (scenario, bool) {
	want := words(goal)
	if best := st.rank(want); len(best) > 0 && best[0].Score >= 2 && 5*best[0].Score >= 3*len(want) {
		return best[0].scenario, true
	}
	return scenario{}, false
}

var stopWords = map[string]bool{
	"the": true, "and": true, "then": true, "from": true, "with": true, "for": true,
	"into": true, "that": true, "this": true,
}

// words are the significant words of text, lower-cased, with a plural s
// dropped so "products" finds "product".
func words(text string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len(w) < 3 || stopWords[w] {
			continue
		}
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = strings.TrimSuffix(w, "s")
		}
		set[w] = true
	}
	return set
}
