package cli

// probe's text reports: the full one (writeProbe) and the short one (writeProbeSummary).

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// writeProbe prints the human report: the interface table (with each interface's
// evidence under it), the findings, the client-impact table and a verdict.
func writeProbe(g *globals, target string, c *card.Card, chk probe.CardCheck, rep probe.Report) {
	results := chk.Results
	w := g.stdout
	st := newStyle(w)
	st.block(w, 0, cardTitle(target, c), st.bold)
	fmt.Fprintln(w)

	rows := [][]string{{"INTERFACE", "DECLARED", "OUTCOME", "REALLY THERE", "LATENCY"}}
	for _, r := range results {
		v := r.Interface.ProtocolVersion
		if v == "" {
			v = "?"
		}
		rows = append(rows, []string{r.Interface.Source.String(), fmt.Sprintf("%s %s at %s", r.Interface.Binding, v, r.Interface.URL),
			string(r.Outcome), really(r), latency(r.Latency)})
	}
	st.table(w, 2, rows, func(row, col int, cell string) string {
		switch {
		case row == 0:
			return st.bold(cell)
		case col == 2:
			return st.outcome(results[row-1].Outcome)(cell)
		}
		return cell
	}, func(row int) {
		if row > 0 {
			st.block(w, 6, results[row-1].Detail, st.dim)
		}
	})
	fmt.Fprintln(w)
	writeCapabilities(w, st, chk.Capabilities)

	if len(rep.Findings) > 0 {
		fmt.Fprintln(w, st.bold("Findings"))
		writeFindings(w, st, rep.Findings)
		fmt.Fprintln(w)
	}

	fmt.Fprintln(w, st.bold("Client impact"))
	crow := [][]string{{"CLIENT", "PICKS", "GETS", "RESULT"}}
	for _, ci := range rep.Clients {
		picks := "-"
		if ci.Interface != nil {
			picks = ci.Interface.String()
		}
		verdict := "ok"
		if !ci.OK {
			verdict = "FAILS"
		}
		if len(ci.CapabilitiesFailing) > 0 {
			// The card declares them, so the client uses them: those calls fail.
			var names []string
			for _, k := range ci.CapabilitiesFailing {
				names = append(names, string(k))
			}
			verdict += "; " + strings.Join(names, ", ") + " FAILS"
		}
		crow = append(crow, []string{ci.Profile, picks, string(ci.Outcome), verdict})
	}
	st.table(w, 2, crow, func(row, col int, cell string) string {
		switch {
		case row == 0:
			return st.bold(cell)
		case col == 3 && rep.Clients[row-1].OK && len(rep.Clients[row-1].CapabilitiesFailing) == 0:
			return st.good(cell)
		case col == 3:
			return st.bad(cell)
		}
		return cell
	}, func(row int) {
		if row > 0 {
			st.block(w, 6, rep.Clients[row-1].Note, st.dim)
		}
	})
	fmt.Fprintln(w)

	writeVerdict(w, st, rep)
}

// writeVerdict prints the last line of a probe report: ok or FAIL, the findings by
// severity and how many client profiles fail.
func writeVerdict(w io.Writer, st style, rep probe.Report) {
	failing := 0
	for _, ci := range rep.Clients {
		if !ci.OK {
			failing++
		}
	}
	summary := fmt.Sprintf(" %s; %d of %d client profiles fail", countSeverities(rep.Findings), failing, len(rep.Clients))
	if !rep.OK() {
		st.block(w, 0, "FAIL"+summary, verdict(st.bad, "FAIL"))
		return
	}
	st.block(w, 0, "ok"+summary, verdict(st.good, "ok"))
}

// really says what the probe found at an interface's address.
func really(r probe.Result) string {
	switch {
	case r.Outcome == wire.Served:
		return "as declared"
	case r.Outcome == wire.AuthRequired:
		return "needs credentials"
	case r.ActualBinding != "" && r.ActualVersion != "":
		return string(r.ActualBinding) + " " + r.ActualVersion
	case r.ActualBinding != "":
		return string(r.ActualBinding) + ", no A2A service"
	case r.Outcome == wire.WrongBinding:
		return "another protocol"
	}
	return "-"
}

func latency(d time.Duration) string {
	switch {
	case d == 0:
		return "-"
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	}
	return d.Round(100 * time.Microsecond).String()
}

// writeProbeSummary prints the short report of --summary: the title, one line per
// interface (outcome, what it declares, what is really there), the verdict, then the
// top finding (the first of the most severe) with its fix.
func writeProbeSummary(g *globals, target string, c *card.Card, chk probe.CardCheck, rep probe.Report) {
	results := chk.Results
	w := g.stdout
	st := newStyle(w)
	st.block(w, 0, cardTitle(target, c), st.bold)
	rows := make([][]string, 0, len(results))
	for _, r := range results {
		rows = append(rows, []string{string(r.Outcome), r.Interface.String(), really(r)})
	}
	st.table(w, 2, rows, func(row, col int, cell string) string {
		if col != 0 {
			return cell
		}
		return st.outcome(results[row].Outcome)(cell)
	}, nil)
	writeVerdict(w, st, rep)
	if top, ok := topFinding(rep.Findings); ok {
		writeFindings(w, st, []card.Finding{top})
		if n := len(rep.Findings) - 1; n > 0 {
			st.block(w, 0, fmt.Sprintf("and %s (a2abind probe without --summary lists them)", counted(n, "more finding")), st.dim)
		}
	}
}

// writeCapabilities prints the capability table: each capability, whether the card
// declares it, the verdict, and each binding's outcome in one cell ("JSONRPC served,
// GRPC not_served"); the evidence of a call that is not served goes under its row.
func writeCapabilities(w io.Writer, st style, caps []probe.CapabilityResult) {
	if len(caps) == 0 {
		return
	}
	fmt.Fprintln(w, st.bold("Capabilities"))
	rows := [][]string{{"CAPABILITY", "CARD", "ON THE WIRE", "PER BINDING"}}
	for _, cr := range caps {
		claim := "not declared"
		if cr.Declared() {
			claim = "declared"
		}
		var per []string
		for _, call := range cr.Calls {
			per = append(per, string(call.Interface.Binding)+" "+string(call.Outcome))
		}
		cell := strings.Join(per, ", ")
		if cell == "" {
			cell = "no served interface to ask"
		}
		rows = append(rows, []string{string(cr.Name), claim, string(cr.Verdict), cell})
	}
	st.table(w, 2, rows, func(row, col int, cell string) string {
		if row == 0 {
			return st.bold(cell)
		}
		if cr := caps[row-1]; col == 2 && cr.Declared() {
			return st.served(cr.Verdict)(cell)
		}
		return cell
	}, func(row int) {
		if row == 0 || !caps[row-1].Declared() {
			return
		}
		for _, call := range caps[row-1].Calls {
			if call.Outcome == probe.CapabilityNotServed {
				st.block(w, 6, call.Detail, st.dim)
			}
		}
	})
	fmt.Fprintln(w)
}

// topFinding is the first finding of the highest severity present.
func topFinding(findings []card.Finding) (card.Finding, bool) {
	for _, sev := range []card.Severity{card.SeverityError, card.SeverityWarning, card.SeverityInfo} {
		for _, f := range findings {
			if f.Severity == sev {
				return f, true
			}
		}
	}
	return card.Finding{}, false
}

// served is the painter of a declared capability's verdict, as outcome is of an
// interface's: served is good, not_served bad, anything else (unknown, auth_required) a
// warning.
func (s style) served(v probe.Served) func(string) string {
	switch v {
	case probe.CapabilityServed:
		return s.good
	case probe.CapabilityNotServed:
		return s.bad
	}
	return s.warn
}

// outcome is the painter of an outcome's name: served is good, auth_required a warning
// (the binding answers; credentials make it a verdict), anything else bad.
func (s style) outcome(o wire.Outcome) func(string) string {
	switch o {
	case wire.Served:
		return s.good
	case wire.AuthRequired:
		return s.warn
	}
	return s.bad
}
