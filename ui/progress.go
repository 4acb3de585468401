package ui

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/textsafe"
	"github.com/visualq/vq/ui/components/progress"
)

// JobProgress shows watched jobs on stderr: live, a line per job redrawn in place; else (CI
// logs) a plain line per change. It is safe for one watch goroutine per job.
type JobProgress struct {
	mu     sync.Mutex
	w      io.Writer
	live   bool
	width  int
	bar    progress.Bar
	styles progressStyles
	jobs   []*jobRow
	drawn  int // lines the last live frame drew
	// held stops writing while something else (a form) has the terminal.
	held   bool
	closed bool
	stop   chan struct{}
	done   chan struct{}
}

// ProgressOptions configure a JobProgress.
type ProgressOptions struct {
	Live  bool // Live redraws in place; set it only when w is a terminal.
	Width int  // the terminal's width in columns; 0 means 80.
	// Profile is the terminal's colour profile; ignored when not live.
	Profile colorprofile.Profile
	// Refresh is how often a live view redraws (0: once a second).
	Refresh time.Duration
}

type jobRow struct {
	id      string
	start   time.Time
	last    api.JobUpdate
	ended   bool
	failure *api.JobUpdate // the last poll's failure while the watch retries.
	// printed dedupes lines: a notification and a poll can report the same change.
	printed string
}

const jobBarWidth = 24

// NewJobProgress starts the display of the jobs, in the order given.
func NewJobProgress(w io.Writer, jobIDs []string, o ProgressOptions) *JobProgress {
	p := &JobProgress{w: w, live: o.Live, width: o.Width}
	if p.width <= 0 {
		p.width = 80
	}
	now := time.Now()
	for _, id := range jobIDs {
		p.jobs = append(p.jobs, &jobRow{id: id, start: now, last: api.JobUpdate{JobID: id}})
	}
	if !p.live {
		return p
	}
	// A live view needs cursor movement: at least ASCII.
	p.w = &colorprofile.Writer{Forward: w, Profile: max(o.Profile, colorprofile.ASCII)}
	p.styles = newProgressStyles()
	p.bar = progress.New(jobBarWidth, p.styles.bar)
	refresh := o.Refresh
	if refresh <= 0 {
		refresh = time.Second
	}
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	go p.tick(refresh)
	p.mu.Lock()
	p.redraw()
	p.mu.Unlock()
	return p
}

func (p *JobProgress) tick(every time.Duration) {
	defer close(p.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			p.redraw()
			p.mu.Unlock()
		}
	}
}

// Update records a change seen by a watch (api.WatchOptions.OnUpdate).
func (p *JobProgress) Update(u api.JobUpdate) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	i := slices.IndexFunc(p.jobs, func(r *jobRow) bool { return r.id == u.JobID })
	if i < 0 {
		return
	}
	row := p.jobs[i]
	if u.Failure != nil {
		row.failure = &u
	} else {
		row.last, row.failure = u, nil
	}
	row.ended = u.Final != nil
	if !p.live && !p.held {
		state := u
		state.Elapsed = 0
		if line := jobLine(state); u.Failure != nil || line != row.printed {
			row.printed = line
			io.WriteString(p.w, jobLine(u)+"\n")
		}
		return
	}
	if p.live {
		p.redraw()
	}
}

// Close stops the display; a live view leaves its last frame in the scrollback.
func (p *JobProgress) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	if p.live {
		p.redraw()
	}
	p.mu.Unlock()
	if p.live {
		close(p.stop)
		<-p.done
	}
}

// Hold stops the view writing until release, after which it draws afresh below.
func (p *JobProgress) Hold() (release func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.held = true
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.held, p.drawn = false, 0
		if p.live && !p.closed {
			p.redraw()
		}
	}
}

// redraw draws over the last frame, lines cut to the width so no wrap throws the count off.
func (p *JobProgress) redraw() {
	if p.held {
		return
	}
	var b strings.Builder
	if p.drawn > 0 {
		b.WriteString("\r" + ansi.CursorUp(p.drawn))
	}
	for _, r := range p.jobs {
		b.WriteString(ansi.EraseEntireLine)
		b.WriteString(ansi.Truncate(p.liveLine(r), p.width-1, "…"))
		b.WriteByte('\n')
	}
	p.drawn = len(p.jobs)
	io.WriteString(p.w, b.String())
}

func (p *JobProgress) liveLine(r *jobRow) string {
	u := r.last
	u.Elapsed = time.Since(r.start)
	if r.ended {
		return p.summaryMark(u) + " " + jobLine(u)
	}
	if u.Status == "" {
		u.Status = "waiting"
	}
	parts := []string{textsafe.SanitizeLine(r.id)}
	if !u.HasProgress || u.Total > 0 {
		// Progress without a total fills no bar.
		parts = append(parts, p.bar.View(u))
	}
	parts = append(parts, progress.Parts(u)...)
	if f := r.failure; f != nil {
		parts = append(parts, p.styles.warn.Render("poll failed ("+textsafe.SanitizeLine(f.Failure.ErrorCode())+"), retrying"))
	}
	parts = append(parts, p.styles.dim.Render(elapsed(u.Elapsed)))
	return strings.Join(parts, "  ")
}

func (p *JobProgress) summaryMark(u api.JobUpdate) string {
	switch {
	case u.Status == api.JobCompleted && (u.Final == nil || u.Final.OK):
		return p.styles.ok.Render("✓")
	case u.Status == api.JobCancelled:
		return p.styles.warn.Render("⊘")
	}
	return p.styles.failed.Render("✗")
}

// jobLine is a job update as CI logs get it: "job_123 running 3/10 Comparing screenshots (4s)".
func jobLine(u api.JobUpdate) string {
	var b strings.Builder
	b.WriteString(textsafe.SanitizeLine(u.JobID))
	switch {
	case u.Failure != nil:
		fmt.Fprintf(&b, " poll failed: %s: %s; retrying in %s", textsafe.SanitizeLine(u.Failure.ErrorCode()),
			textsafe.SanitizeLine(u.Failure.ErrorMessage()), retryDelay(u.RetryIn))
	default:
		for _, part := range progress.Parts(u) {
			b.WriteString(" " + part)
		}
		// A job that ended failed or cancelled says so in its status;
		// an error line would only restate it (a CI run with changes is
		// no crash).
		if f := u.Final; f != nil && !f.OK && f.ErrorCode() != api.CodeJobFailed && f.ErrorCode() != api.CodeJobCancelled {
			b.WriteString(": " + textsafe.SanitizeLine(f.ErrorCode()) + ": " + textsafe.SanitizeLine(f.ErrorMessage()))
		}
	}
	b.WriteString(" (" + elapsed(u.Elapsed) + ")")
	return b.String()
}

// retryDelay rounds a wait for reading: 1.5s, 250ms.
func retryDelay(d time.Duration) string {
	if d >= time.Second {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Millisecond).String()
}

// elapsed is a duration as people read it: 4s, 2m05s, 1h02m.
func elapsed(d time.Duration) string {
	s := int(d.Seconds())
	switch {
	case s < 60:
		return strconv.Itoa(s) + "s"
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
}
