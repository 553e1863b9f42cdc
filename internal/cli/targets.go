package cli

// probe --targets FILE: many targets on one probe engine, a summary row (or a JSON
// Lines record) per target as each finishes, a progress bar on a terminal.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/discovery"
	"github.com/a2abind/a2abind/internal/redact"
	"github.com/a2abind/a2abind/internal/wording"
	"github.com/a2abind/a2abind/lint"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/signature"
	"github.com/a2abind/a2abind/wire"
)

// Bounds of a fleet run (--targets, --catalog) and of what a text run keeps.
const (
	// targetBudget caps each card fetch and each interface request of a --targets run
	// (--timeout bounds each target as a whole), so one silent interface cannot use up
	// a target's time.
	targetBudget = probe.DefaultTimeout
	// maxTargetDetails is how many failing targets' reports a text run keeps to print
	// after the summary: memory stays bounded whatever the number of targets.
	maxTargetDetails = 20
	// maxTargetColumn bounds the TARGET column's width (a longer target pushes its row).
	maxTargetColumn = 60
)

// targetError is the -o json line of a target whose card cannot be obtained.
type targetError struct {
	Target string `json:"target"`
	OK     bool   `json:"ok"`
	Error  string `json:"error"`
}

// runTargets probes every target of f.Targets (or every agent of f.Catalog) and prints
// a summary row (or a JSON Lines record) per target as each finishes. --timeout bounds
// each target, --deadline the whole run.
func runTargets(parent context.Context, f *probeOptions, cardOpts []card.Option, probeOpts []probe.Option) error {
	g := f.g
	if f.Concurrency < 1 || f.Concurrency > 4096 {
		return fail(ExitUsage, fmt.Errorf("--concurrency %d: want a number from 1 to 4096", f.Concurrency))
	}
	if f.Deadline < 0 {
		return fail(ExitUsage, fmt.Errorf("--deadline %s is negative: give the whole run's bound, e.g. --deadline 10m", f.Deadline))
	}
	var targets []string
	if f.Catalog == "" {
		var err error
		if targets, err = readTargets(f.Targets, g.stdin); err != nil {
			return fail(ExitUsage, err)
		}
		g.hide(nil, targets...)
	}
	ctx, stop := signal.NotifyContext(redact.NewContext(parent, g.secrets), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if f.Deadline > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.Deadline)
		defer cancel()
	}
	sigOpts, err := f.Sig.options(ctx)
	if err != nil {
		return fail(ExitUsage, err)
	}
	budget := targetBudget
	if g.timeout > 0 {
		budget = min(budget, g.timeout)
	}
	cardOpts = append(cardOpts, card.WithTimeout(budget))
	probeOpts = append(probeOpts, probe.WithTimeout(budget), probe.WithTargetTimeout(g.timeout),
		probe.WithConcurrency(f.Concurrency), probe.WithCardOptions(cardOpts...),
		probe.WithAdmit(func(ctx context.Context, c *card.Card) *card.Card { return admit(ctx, c, f.Sig, sigOpts) }))

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Each target is visited once: connections are reused within a target (the card
	// fetch and the bindings on one origin), and only the most recent few are kept idle,
	// so open sockets and goroutines grow with the concurrency, not with the targets.
	e := probe.NewEngine(probe.WithMaxIdle(4 * f.Concurrency))
	defer e.Close()
	var cat listed
	if f.Catalog != "" {
		if cat, err = listCatalog(ctx, f, e, probeOpts); err != nil {
			return fail(ExitUsage, err)
		}
		targets = cat.targets
	}

	bar := newProgress(g.stderr, len(targets)+cat.others())
	var out targetWriter = newTargetText(g, append(targets, cat.names()...), bar, f.Summary)
	if g.json() {
		out = targetJSON{enc: json.NewEncoder(g.stdout)}
	}
	failed := 0
	var writeErr error
	emit := func(r probe.TargetResult) {
		bar.add()
		row := summarise(r, f.Sig)
		if !row.ok {
			failed++
		}
		if writeErr == nil {
			if writeErr = out.add(r, row); writeErr != nil {
				cancel() // standard output failed: the rest is drained, not printed
			}
		}
	}
	for r := range e.Targets(ctx, targets, probeOpts...) {
		emit(r)
	}
	cat.probeOthers(ctx, e, g.timeout, probeOpts, emit)
	bar.finish()
	if writeErr == nil {
		writeErr = out.finish()
	}
	if writeErr != nil {
		return fail(ExitUsage, writeErr)
	}
	if failed > 0 {
		return fail(ExitFailed, nil)
	}
	return nil
}

// readTargets reads a targets file ("-": standard input) with discovery.ReadTargets,
// the one reader of the format.
func readTargets(name string, stdin io.Reader) ([]string, error) {
	var r io.Reader = stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("--targets: %w", err)
		}
		defer f.Close()
		r = f
	}
	read, err := discovery.ReadTargets(name, r)
	if err != nil {
		return nil, fmt.Errorf("--targets %w", err)
	}
	targets := make([]string, len(read))
	for i, t := range read {
		targets[i] = t.URL
	}
	return targets, nil
}

// targetRow is one target's line of the summary.
type targetRow struct {
	ok       bool
	verdict  string // ok, FAIL, NO CARD
	served   string // "2/3"
	findings string // "2 errors, 1 warning"
	report   probe.Report
}

// admit verifies a target's card signatures as probe does, before any interface is
// dialled (so lint reports them), and returns the card to probe: under
// --require-signature only the interfaces a signature covers, or none.
func admit(ctx context.Context, c *card.Card, sig signatureFlags, sigOpts []signature.VerifyOption) *card.Card {
	if sig.asked() || signature.Signed(c) {
		_, _ = signature.VerifySignatures(ctx, c, sigOpts...) // the outcome is in the lint findings
	}
	if !sig.require {
		return c
	}
	dial, _ := signature.Of(c).Dialable(c) // nil when no signature covers an interface
	return dial
}

// summarise judges a target (its signatures were verified by admit) and makes its row.
func summarise(r probe.TargetResult, sig signatureFlags) targetRow {
	if r.Err != nil {
		return targetRow{verdict: "NO CARD", served: "-", findings: r.Err.Error()}
	}
	rep := probe.Diagnose(r.Card, r.Results, r.Capabilities...)
	if sig.require {
		rep.Findings = lint.RequireSignature(r.Card, rep.Findings)
	}
	served := 0
	for _, res := range r.Results {
		if res.Outcome == wire.Served {
			served++
		}
	}
	row := targetRow{ok: rep.OK(), verdict: "ok", served: fmt.Sprintf("%d/%d", served, len(r.Results)),
		findings: countSeverities(rep.Findings), report: rep}
	if !row.ok {
		row.verdict = "FAIL"
	}
	return row
}

// targetWriter prints the targets as they finish.
type targetWriter interface {
	add(r probe.TargetResult, row targetRow) error
	finish() error
}

// targetJSON writes one JSON Lines record per target, each in one write (an Encoder
// writes what json.Marshal makes and a newline, from a buffer it reuses).
type targetJSON struct{ enc *json.Encoder }

func (t targetJSON) add(r probe.TargetResult, row targetRow) error {
	var v any = targetError{Target: r.Target, Error: row.findings}
	if r.Err == nil {
		v = probeJSON(r.Target, probe.CardCheck{Results: r.Results, Capabilities: r.Capabilities}, row.report)
	}
	return t.enc.Encode(v)
}

func (targetJSON) finish() error { return nil }

// targetText prints the summary table a row at a time, in completion order, and keeps
// the reports of the first maxTargetDetails failing targets to print after it: what
// it holds does not grow with the number of targets.
type targetText struct {
	g       *globals
	st      style
	bar     *progress
	width   int // of the TARGET column
	header  bool
	total   int
	ok      int
	failing int
	nocard  int
	details []string
	omitted int
	summary bool // --summary: the short report of each failing target
}

func newTargetText(g *globals, targets []string, bar *progress, summary bool) *targetText {
	t := &targetText{g: g, st: newStyle(g.stdout), bar: bar, total: len(targets), width: len("TARGET"), summary: summary}
	for _, tg := range targets {
		t.width = min(max(t.width, textWidth(wording.Escape(tg))), maxTargetColumn)
	}
	return t
}

func (t *targetText) line(target, verdict, served, findings string, colour func(string) string) error {
	t.bar.clear()
	_, err := fmt.Fprintf(t.g.stdout, "%s  %s  %s  %s\n", pad(target, t.width), colour(pad(verdict, len("NO CARD"))),
		pad(served, len("SERVED")), findings)
	return err
}

func (t *targetText) add(r probe.TargetResult, row targetRow) error {
	if !t.header {
		t.header = true
		if err := t.line(t.st.bold("TARGET")+strings.Repeat(" ", max(0, t.width-len("TARGET"))), "VERDICT", "SERVED", t.st.bold("FINDINGS"), t.st.bold); err != nil {
			return err
		}
	}
	colour := t.st.bad
	switch {
	case row.ok:
		t.ok++
		colour = t.st.good
	case r.Err != nil:
		t.nocard++
	default:
		t.failing++
	}
	if err := t.line(wording.Escape(r.Target), row.verdict, row.served, wording.Escape(row.findings), colour); err != nil {
		return err
	}
	if row.ok {
		return nil
	}
	if len(t.details) == maxTargetDetails {
		t.omitted++
		return nil
	}
	var b strings.Builder
	if r.Err != nil {
		fmt.Fprintf(&b, "%s: %s\n", wording.Escape(r.Target), wording.Escape(r.Err.Error())) // it says "agent card not obtainable" itself
	} else {
		sub := *t.g
		sub.stdout = redact.Writer{W: &b, S: t.g.secrets}
		write := writeProbe
		if t.summary {
			write = writeProbeSummary
		}
		write(&sub, r.Target, r.Card, probe.CardCheck{Results: r.Results, Capabilities: r.Capabilities}, row.report)
	}
	t.details = append(t.details, b.String())
	return nil
}

func (t *targetText) finish() error {
	w := t.g.stdout
	fmt.Fprintf(w, "\n%s: %d ok, %d failing, %d without a card\n", counted(t.total, "target"), t.ok, t.failing, t.nocard)
	for _, d := range t.details {
		if _, err := fmt.Fprintf(w, "\n%s", d); err != nil {
			return err
		}
	}
	if t.omitted > 0 {
		_, err := fmt.Fprintf(w, "\n%s not shown (the first %d are): probe them one by one, or use -o json for every report\n",
			counted(t.omitted, "more failing target's report"), maxTargetDetails)
		return err
	}
	return nil
}

// progress is the --targets progress bar: drawn on standard error only when it is a
// terminal, a no-op otherwise. It is redrawn every quarter second as well as on each
// target done, so the count and the elapsed time stay true while slow targets run.
type progress struct {
	bar  *progressbar.ProgressBar
	stop chan struct{}
	done chan struct{}
}

func newProgress(w io.Writer, n int) *progress {
	if rw, ok := w.(redact.Writer); ok {
		w = rw.W // the bar shows counts only
	}
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return &progress{}
	}
	p := &progress{
		bar: progressbar.NewOptions(n,
			progressbar.OptionSetWriter(f),
			progressbar.OptionSetDescription("probing"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	go func() {
		defer close(p.done)
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-tick.C:
				_ = p.bar.Add(0) // redraw
			}
		}
	}()
	return p
}

func (p *progress) add() {
	if p.bar != nil {
		_ = p.bar.Add(1)
	}
}

// clear erases the bar before a line is printed under it.
func (p *progress) clear() {
	if p.bar != nil {
		_ = p.bar.Clear()
	}
}

func (p *progress) finish() {
	if p.bar != nil {
		close(p.stop)
		<-p.done
		_ = p.bar.Finish()
	}
}
