package cli

// Text rendering shared by the commands (lint, probe, send, demo).
//
// A style decides once, from the stream it writes to, whether to colour: only when the
// stream is a terminal, NO_COLOR is unset (https://no-color.org) and TERM is not "dumb".
// Tests write to buffers and so always get plain text. Colour never carries meaning on
// its own: every coloured word is also spelt out ("error", "ok", ...).
//
//	st := newStyle(g.stdout)
//	fmt.Fprintln(g.stdout, st.bad("FAIL"), "2 errors")
//	writeFindings(g.stdout, st, findings)

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/a2abind/a2abind/card"
)

// style renders text with or without ANSI colour.
type style struct{ color bool }

// newStyle returns the style for w: coloured only on a terminal.
func newStyle(w io.Writer) style {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return style{}
	}
	return style{color: term.IsTerminal(int(f.Fd()))}
}

func (s style) paint(sgr, text string) string {
	if !s.color || text == "" {
		return text
	}
	return "\x1b[" + sgr + "m" + text + "\x1b[0m"
}

func (s style) bold(t string) string   { return s.paint("1", t) }
func (s style) dim(t string) string    { return s.paint("2", t) }
func (s style) good(t string) string   { return s.paint("32", t) }   // green
func (s style) bad(t string) string    { return s.paint("1;31", t) } // bold red
func (s style) warn(t string) string   { return s.paint("33", t) }   // yellow
func (s style) notice(t string) string { return s.paint("36", t) }   // cyan

// severity renders a severity word padded to a fixed width (padding outside the colour,
// so columns line up either way).
func (s style) severity(sev card.Severity) string {
	word := pad(string(sev), 7)
	switch sev {
	case card.SeverityError:
		return s.bad(string(sev)) + word[len(sev):]
	case card.SeverityWarning:
		return s.warn(string(sev)) + word[len(sev):]
	default:
		return s.notice(string(sev)) + word[len(sev):]
	}
}

// pad right-pads text with spaces to width runes.
func pad(text string, width int) string {
	if n := utf8.RuneCountInString(text); n < width {
		return text + strings.Repeat(" ", width-n)
	}
	return text
}

// columns renders rows as left-aligned columns separated by two spaces; colourise, if
// not nil, styles a cell after padding (so escape codes do not break alignment).
func columns(rows [][]string, colourise func(row, col int, cell string) string) []string {
	var widths []int
	for _, r := range rows {
		for i, cell := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	out := make([]string, len(rows))
	for ri, r := range rows {
		var b strings.Builder
		for ci, cell := range r {
			text := cell
			if ci < len(r)-1 {
				text = pad(cell, widths[ci])
			}
			if colourise != nil {
				text = colourise(ri, ci, cell) + text[len(cell):]
			}
			if ci > 0 {
				b.WriteString("  ")
			}
			b.WriteString(text)
		}
		out[ri] = strings.TrimRight(b.String(), " ")
	}
	return out
}

// writeFindings prints findings, one block each: severity, code and interface, then the
// message and the fix, indented.
func writeFindings(w io.Writer, st style, findings []card.Finding) {
	for _, f := range findings {
		where := ""
		if f.Interface != "" {
			where = " " + st.dim("("+f.Interface+")")
		}
		fmt.Fprintf(w, "%s %s%s\n", st.severity(f.Severity), st.bold(f.Code), where)
		fmt.Fprintf(w, "        %s\n", f.Message)
		if f.Fix != "" {
			fmt.Fprintf(w, "        %s %s\n", st.dim("fix:"), f.Fix)
		}
	}
}

// countSeverities returns e.g. "2 errors, 1 warning" ("no findings" when empty).
func countSeverities(findings []card.Finding) string {
	n := map[card.Severity]int{}
	for _, f := range findings {
		n[f.Severity]++
	}
	var parts []string
	for _, sev := range []card.Severity{card.SeverityError, card.SeverityWarning, card.SeverityInfo} {
		if n[sev] > 0 {
			parts = append(parts, plural(n[sev], string(sev)))
		}
	}
	if len(parts) == 0 {
		return "no findings"
	}
	return strings.Join(parts, ", ")
}

// plural renders "1 error" / "2 errors" ("info" does not take an s).
func plural(n int, word string) string {
	if n == 1 || word == "info" {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
