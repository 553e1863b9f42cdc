package cli

// probe --targets FILE: many targets on one probe engine, a summary table (or JSON
// Lines as the targets finish), a progress bar on a terminal.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// Bounds on a targets file.
const (
	maxTargets    = 100_000
	maxTargetLine = 8 << 10
	// targetBudget caps each card fetch and each interface of a --targets run, so one
	// silent agent cannot use up the whole run's --timeout.
	targetBudget = probe.DefaultTimeout
)

// targetError is the -o json line of a target whose card cannot be obtained.
type targetError struct {
	Target string `json:"target"`
	OK     bool   `json:"ok"`
	Error  string `json:"error"`
}

// runTargets probes every target of f.targets and prints the summary or JSON Lines.
func runTargets(parent context.Context, opts *probeOptions, cardOpts []card.Option, probeOpts []probe.Option) error {
	g := opts.g
	if opts.Concurrency < 1 || opts.Concurrency > 4096 {
		return fail(ExitUsage, fmt.Errorf("--concurrency %d: want a number from 1 to 4096", opts.Concurrency))
	}
	targets, err := readTargets(opts.Targets, g.stdin)
	if err != nil {
		return fail(ExitUsage, err)
	}
	budget := targetBudget
	if g.timeout > 0 {
		budget = min(budget, g.timeout)
	}
	cardOpts = append(cardOpts, card.WithTimeout(budget))
	probeOpts = append(probeOpts, probe.WithTimeout(budget), probe.WithConcurrency(opts.Concurrency),
		probe.WithCardOptions(cardOpts...))

	ctx, cancel := g.context(parent)
	defer cancel()
	// Each target is visited once: connections are reused within a target (the card
	// fetch and the bindings on one origin), and only the most recent few are kept idle,
	// so open sockets and goroutines grow with the concurrency, not with the targets.
	e := probe.NewEngine(probe.WithMaxIdle(4 * opts.Concurrency))
	defer e.Close()

	bar := newProgress(g.stderr, len(targets))
	rows := make(map[string][]targetRow, len(targets)) // by target line: a line may repeat
	failed := 0
	var writeErr error
	for r := range e.Targets(ctx, targets, probeOpts...) {
		bar.add()
		row := summarise(r)
		if !row.ok {
			failed++
		}
		switch {
		case writeErr != nil:
			// Standard output failed: the rest is drained, not printed.
		case g.json():
			if writeErr = writeTargetJSON(g.stdout, r, row); writeErr != nil {
				cancel()
			}
		default:
			if row.ok {
				// Keep only what the table shows: memory grows with the failing targets.
				row.result, row.report = probe.TargetResult{Target: r.Target}, probe.Report{}
			}
			rows[r.Target] = append(rows[r.Target], row)
		}
	}
	bar.finish()
	if writeErr != nil {
		return fail(ExitUsage, writeErr)
	}
	if !g.json() {
		writeTargets(g, targets, rows, opts.Summary)
	}
	if failed > 0 {
		return fail(ExitFailed, nil)
	}
	return nil
}

// readTargets reads a targets file ("-": standard input): one target per line, blank
// lines and lines starting with "#" skipped, surrounding spaces trimmed.
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
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxTargetLine)
	var targets []string
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			continue
		case line == "-":
			return nil, fmt.Errorf("--targets %s line %d: \"-\" (standard input) cannot be a target in a targets file", name, n)
		case strings.ContainsFunc(line, unicode.IsControl):
			return nil, fmt.Errorf("--targets %s line %d: control character in %q", name, n, line)
		case len(targets) == maxTargets:
			return nil, fmt.Errorf("--targets %s: more than %d targets; split the file", name, maxTargets)
		}
		targets = append(targets, line)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("a line is longer than %d bytes", maxTargetLine)
		}
		return nil, fmt.Errorf("--targets %s: %w", name, err)
	}
	if len(targets) == 0 {
		return nil, fmt.Errorf("--targets %s: no target in it (one base URL, card URL or card file per line)", name)
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
	result   probe.TargetResult
}

func summarise(r probe.TargetResult) targetRow {
	if r.Err != nil {
		return targetRow{verdict: "NO CARD", served: "-", findings: r.Err.Error(), result: r}
	}
	rep := probe.Diagnose(r.Card, r.Results)
	served := 0
	for _, res := range r.Results {
		if res.Outcome == wire.Served {
			served++
		}
	}
	row := targetRow{ok: rep.OK(), verdict: "ok", served: fmt.Sprintf("%d/%d", served, len(r.Results)),
		findings: countSeverities(rep.Findings), report: rep, result: r}
	if !row.ok {
		row.verdict = "FAIL"
	}
	return row
}

// writeTargetJSON prints one JSON Lines record.
func writeTargetJSON(w io.Writer, r probe.TargetResult, row targetRow) error {
	var v any = targetError{Target: r.Target, Error: row.findings}
	if r.Err == nil {
		v = probeJSON(r.Target, r.Results, row.report)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// writeTargets prints the summary table in the file's order, a count line, then the
// report of every failing target (the short one with --summary).
func writeTargets(g *globals, targets []string, rows map[string][]targetRow, summary bool) {
	w := g.stdout
	st := newStyle(w)
	ordered := make([]targetRow, 0, len(targets))
	next := map[string]int{}
	for _, t := range targets {
		ordered = append(ordered, rows[t][next[t]])
		next[t]++
	}
	table := [][]string{{"TARGET", "VERDICT", "SERVED", "FINDINGS"}}
	var ok, failing, nocard int
	for i, row := range ordered {
		table = append(table, []string{targets[i], row.verdict, row.served, row.findings})
		switch {
		case row.ok:
			ok++
		case row.result.Err != nil:
			nocard++
		default:
			failing++
		}
	}
	st.table(w, 0, table, func(r, c int, cell string) string {
		switch {
		case r == 0:
			return st.bold(cell)
		case c == 1 && ordered[r-1].ok:
			return st.good(cell)
		case c == 1:
			return st.bad(cell)
		}
		return cell
	}, nil)
	fmt.Fprintf(w, "\n%s: %d ok, %d failing, %d without a card\n", plural(len(targets), "target"), ok, failing, nocard)
	for i, row := range ordered {
		switch {
		case row.ok:
		case row.result.Err != nil:
			fmt.Fprintf(w, "\n%s: %s %s\n", st.bold(escape(targets[i])), st.bad("card not obtainable:"), escape(row.result.Err.Error()))
		default:
			fmt.Fprintln(w)
			write := writeProbe
			if summary {
				write = writeProbeSummary
			}
			write(g, targets[i], row.result.Card, row.result.Results, row.report)
		}
	}
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

func (p *progress) finish() {
	if p.bar != nil {
		close(p.stop)
		<-p.done
		_ = p.bar.Finish()
	}
}
