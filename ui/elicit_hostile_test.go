package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/textsafe"
)

// hostileQuestions are the forms of issue 29 that froze the TUI, and the
// largest a form still asks: enums of 10k and 50k values, a 20 MB message,
// 5000-character titles, descriptions and labels, and as many fields as a
// form asks, each a 10k-value enum with a 5000-character title and
// description.
func hostileQuestions() map[string]api.Elicitation {
	long := strings.Repeat("long title ", 5000/11)
	values := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprint("v", i)
		}
		return out
	}
	many := make([]api.ElicitField, maxFormFields)
	for i := range many {
		many[i] = api.ElicitField{Name: fmt.Sprint("f", i), Title: long, Description: long, Type: "string", Enum: values(10_000)}
	}
	labels := make([]string, 10_000)
	for i := range labels {
		labels[i] = long
	}
	// Pages as full as they come: an enum of long labels and five text
	// fields, each with a long title and description.
	full := make([]api.ElicitField, maxFormFields)
	for i := range full {
		full[i] = api.ElicitField{Name: fmt.Sprint("f", i), Title: long, Description: long, Type: "string"}
		if i%pageFields == 0 {
			full[i].Enum, full[i].EnumNames = values(10_000), labels
		}
	}
	return map[string]api.Elicitation{
		"10k-value enum":   {Message: "Pick", Fields: []api.ElicitField{{Name: "e", Type: "string", Required: true, Enum: values(10_000)}}},
		"50k-value enum":   {Message: "Pick", Fields: []api.ElicitField{{Name: "e", Type: "string", Required: true, Enum: values(50_000)}}},
		"50k-value array":  {Message: "Pick", Fields: []api.ElicitField{{Name: "e", Type: "array", Enum: values(50_000)}}},
		"5000-char labels": {Message: "Pick", Fields: []api.ElicitField{{Name: "e", Type: "string", Enum: values(10_000), EnumNames: labels}}},
		"20 MB message":    {Message: strings.Repeat("twenty megabytes\n", 20<<20/17), Fields: []api.ElicitField{{Name: "t", Title: long, Type: "string"}}},
		"32 fields of 10k": {Message: "Pick", Fields: many},
		"full pages":       {Message: strings.Repeat("long message ", 5000), Fields: full},
	}
}

// A question is cut before it is drawn: an enum offers fieldChoices
// values and says how many it left out, titles, labels and descriptions
// are cut, the message keeps maxMessageLines lines, the fields come in
// pages; every frame fits the terminal, and what is picked is a value the
// server offered.
func TestHugeQuestionsAreCutBeforeTheyAreDrawn(t *testing.T) {
	t.Parallel()
	for name, e := range hostileQuestions() {
		t.Run(name, func(t *testing.T) {
			q := openForm(e)
			q.resize(100, 40)
			text := formText(q)
			checkFormBounded(t, q, 100, 40)
			if e.Fields[0].Enum != nil {
				offered := min(len(e.Fields[0].Enum), fieldChoices)
				mustContain(t, text, fmt.Sprintf("+%d more not offered (the server sent %d)", len(e.Fields[0].Enum)-offered, len(e.Fields[0].Enum)))
			}
			if len(text) > 64<<10 {
				t.Errorf("a %d-byte frame", len(text))
			}
			for range 3 * fieldChoices {
				q.update(keyMsg("down"))
			}
			checkFormBounded(t, q, 100, 40)
		})
	}
	q := openForm(hostileQuestions()["50k-value enum"])
	pressInForm(q, "up", "enter") // past the first, back round to the last offered
	answer, _ := answered(q)
	if want := fmt.Sprint("v", fieldChoices-1); answer.Action != api.ElicitAccept || answer.Content["e"] != want {
		t.Errorf("answer %+v, want e = %s, the last value offered", answer, want)
	}
}

// checkFormBounded fails unless q's frame fits width×height.
func checkFormBounded(t *testing.T, q *questionForm, width, height int) {
	t.Helper()
	lines := strings.Split(formText(q), "\n")
	if len(lines) > height {
		t.Errorf("%d lines in a %d-line terminal", len(lines), height)
	}
	for i, l := range lines {
		if w := textsafe.DisplayWidth(l); w > width {
			t.Errorf("line %d is %d columns wide: %.60q", i, w, l)
		}
	}
}

// More fields than a form asks is refused with why; the limit itself is
// asked.
func TestCheckQuestionRefusesTooManyFields(t *testing.T) {
	t.Parallel()
	fields := make([]api.ElicitField, 10_000)
	for i := range fields {
		fields[i] = api.ElicitField{Name: fmt.Sprint("f", i), Title: strings.Repeat("t", 5000), Type: "string"}
	}
	err := CheckQuestion(api.Elicitation{Fields: fields})
	if err == nil || err.Error() != "it has 10000 fields, more than the 32 a form asks" {
		t.Errorf("10k fields: %v", err)
	}
	if err := CheckQuestion(api.Elicitation{Fields: fields[:maxFormFields]}); err != nil {
		t.Errorf("%d fields: %v", maxFormFields, err)
	}
	if line := QuestionLine(api.Elicitation{Message: strings.Repeat("x\x1b[2J\n", 20<<20/6)}); len(line) > maxTitleBytes+len("…") || strings.ContainsAny(line, "\x1b\n") {
		t.Errorf("a 20 MB message as a %d-byte line: %.80q", len(line), line)
	}
}

// BenchmarkQuestionKey is one key and the frame after it on each hostile
// question, at 120×40. Goal: 5 ms a key whatever the form (issue 29: 0.4 s
// on a 10k-value enum, 66 s on 50k).
func BenchmarkQuestionKey(b *testing.B) {
	for name, e := range hostileQuestions() {
		b.Run(name, func(b *testing.B) {
			q := openForm(e)
			q.resize(120, 40)
			keys := []string{"down", "down", "up", "tab"}
			b.ResetTimer()
			start := cpuTime()
			for i := 0; i < b.N; i++ {
				q.update(keyMsg(keys[i%len(keys)]))
				_ = q.lines()
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkQuestionFirstFrame is a hostile question's form built and
// drawn once. Goal: the 100 ms of a first frame (issue 29: 10 s for a
// 10k-value enum, 43 s for 50k).
func BenchmarkQuestionFirstFrame(b *testing.B) {
	for name, e := range hostileQuestions() {
		b.Run(name, func(b *testing.B) {
			start := cpuTime()
			for b.Loop() {
				q := openForm(e)
				q.resize(120, 40)
				_ = q.lines()
			}
			reportCPU(b, start)
		})
	}
}

// reportCPU reports the CPU time an iteration took since start, in ms.
func reportCPU(b *testing.B, start time.Duration) {
	if used := cpuTime() - start; used > 0 {
		b.ReportMetric(float64(used)/float64(b.N)/1e6, "cpu-ms/op")
	}
}

// FuzzQuestionForm asks a question built from any text and sizes: as
// many fields as CheckQuestion lets through, each an enum of up to 65535
// values or a text field, titled, described and labelled with the text.
// The form is drawn at any size and answered with any keys: nothing
// panics, every frame fits the terminal, and an accepted answer holds
// only values the server offered.
func FuzzQuestionForm(f *testing.F) {
	f.Add("Pick\x1b]0;x\x07", "title\u202e", uint8(3), uint16(50_000), uint8(80), uint8(24), []byte{1, 2, 0, 3})
	f.Add(strings.Repeat("m\n", 100), strings.Repeat("t", 5000), uint8(maxFormFields), uint16(10_000), uint8(40), uint8(12), []byte{4, 4, 4, 2})
	f.Add("", "", uint8(0), uint16(0), uint8(1), uint8(1), []byte{2})
	keys := []string{"down", "up", "enter", "tab", "x", "space", "a", "shift+tab"}
	values := make([]string, 1<<16)
	for v := range values {
		values[v] = fmt.Sprint("v", v)
	}
	f.Fuzz(func(t *testing.T, message, text string, fields uint8, enum uint16, width, height uint8, presses []byte) {
		e := api.Elicitation{Message: message}
		labels := slicesRepeat(text, int(enum))
		for i := range int(fields) % (maxFormFields + 1) {
			field := api.ElicitField{Name: fmt.Sprint("f", i), Title: text, Description: text, Type: "string", Required: i%2 == 0}
			if i%3 != 2 {
				n := int(enum) >> (i % 8)
				field.Enum, field.EnumNames = values[:n], labels[:n]
				if i%3 == 1 {
					field.Type = "array"
				}
			}
			e.Fields = append(e.Fields, field)
		}
		if CheckQuestion(e) != nil || !e.Askable() {
			return
		}
		w, h := max(int(width), 1), max(int(height), 1)
		q := openForm(e)
		q.resize(w, h)
		for _, p := range presses[:min(len(presses), 12)] {
			q.update(keyMsg(keys[int(p)%len(keys)]))
			for i, l := range strings.Split(formText(q), "\n") {
				if dw := textsafe.DisplayWidth(l); dw > w {
					t.Fatalf("line %d is %d columns wide in %d: %q", i, dw, w, l)
				}
			}
		}
		answer, ok := answered(q)
		if !ok || answer.Action != api.ElicitAccept {
			return
		}
		for name, v := range answer.Content {
			values, _ := v.([]any)
			for _, value := range append(values, v) {
				var n int
				if s, isString := value.(string); isString {
					if _, err := fmt.Sscanf(s, "v%d", &n); err == nil && n >= fieldChoices {
						t.Fatalf("%s = %s, which was not offered", name, s)
					}
				}
			}
		}
	})
}

func slicesRepeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}
