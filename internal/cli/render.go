package cli

// Text rendering shared by the commands (lint, probe, send, demo).
//
// A style decides once, from the stream it writes to, whether to colour and how wide a
// line may be. Colour: only when the stream is a terminal, NO_COLOR is unset
// (https://no-color.org) and TERM is not "dumb". Width: the terminal's, else $COLUMNS,
// else none (no wrapping, as when piped). Tests write to buffers and so get plain text
// at the width they set in $COLUMNS. Colour never carries meaning on its own: every
// coloured word is also spelt out ("error", "ok", ...).
//
// Everything that came from a card or the network (names, URLs, evidence, error text)
// goes through escape before it reaches the terminal, so a card cannot move the cursor,
// clear the screen or hide text. The table and block helpers escape what they print;
// callers hand them raw strings.
//
//	st := newStyle(g.stdout)
//	st.block(g.stdout, 0, "FAIL 2 errors", verdict(st.bad, "FAIL"))
//	writeFindings(g.stdout, st, findings)

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/rivo/uniseg"
	"golang.org/x/term"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/redact"
	"github.com/a2abind/a2abind/internal/wording"
)

// style renders text with or without ANSI colour, wrapped to width columns (0: no limit).
type style struct {
	color bool
	width int
	hide  *redact.Secrets // the command's secrets (globals.hide), hidden before wrapping cuts one
}

// newStyle returns the style for w: coloured only on a terminal, as wide as the terminal
// (else $COLUMNS, else unlimited). Writing through an indent narrows the width by its prefix.
func newStyle(w io.Writer) style {
	if rw, ok := w.(redact.Writer); ok { // what it hides is hidden before lines are wrapped
		st := newStyle(rw.W)
		st.hide = rw.S
		return st
	}
	if in, ok := w.(indent); ok {
		st := newStyle(in.w)
		if st.width > 0 {
			st.width = max(st.width-textWidth(in.prefix), minWidth)
		}
		return st
	}
	st := style{width: envWidth()}
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return st
	}
	if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
		st.width = max(cols, minWidth)
	}
	st.color = os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
	return st
}

// minWidth is the narrowest width text is wrapped to; a narrower terminal gets lines of
// this length rather than one character per line.
const minWidth = 40

// envWidth reads $COLUMNS; 0 when unset or not a positive number.
func envWidth() int {
	n, err := strconv.Atoi(strings.TrimSpace(os.Getenv("COLUMNS")))
	if err != nil || n <= 0 {
		return 0
	}
	return max(n, minWidth)
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

// plain paints nothing.
func plain(t string) string { return t }

// verdict returns a painter that styles word where a line starts with it.
func verdict(paint func(string) string, word string) func(string) string {
	return func(l string) string {
		if rest, ok := strings.CutPrefix(l, word); ok {
			return paint(word) + rest
		}
		return l
	}
}

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

// textWidth is how many terminal columns text takes: CJK and most emoji take two,
// combining marks none (uniseg's East Asian Width and grapheme clusters).
func textWidth(text string) int { return uniseg.StringWidth(text) }

// pad right-pads text with spaces to width columns.
func pad(text string, width int) string {
	if n := textWidth(text); n < width {
		return text + strings.Repeat(" ", width-n)
	}
	return text
}

// wrap breaks text into lines of at most width columns, on spaces where it can and inside
// a word only when the word alone is longer than a line. width <= 0 means one line.
func wrap(text string, width int) []string {
	if width <= 0 || textWidth(text) <= width {
		return []string{text}
	}
	var lines []string
	var cur strings.Builder
	curW := 0
	flush := func() {
		lines = append(lines, strings.TrimRight(cur.String(), " "))
		cur.Reset()
		curW = 0
	}
	for _, word := range strings.Split(text, " ") {
		ww := textWidth(word)
		switch {
		case curW > 0 && curW+1+ww <= width:
			cur.WriteString(" " + word)
			curW += 1 + ww
			continue
		case curW > 0:
			flush()
		}
		for ww > width {
			cut, cw := breakAt(word, width)
			lines = append(lines, word[:cut])
			word, ww = word[cut:], ww-cw
		}
		cur.WriteString(word)
		curW += ww
	}
	if curW > 0 || len(lines) == 0 {
		flush()
	}
	return lines
}

// separators are the characters after which a word too long for a line may be cut: URL
// and identifier separators (url+preferredTransport, a2a/jsonrpc, field-null).
const separators = "/+-_.:?&=,;"

// breakAt returns the byte offset at which to cut a word wider than width, and the
// width of the piece before it: after the last separator within its first width
// columns, else at width (never inside a grapheme cluster, and after at least one).
// It reads only the first width columns of the word.
func breakAt(word string, width int) (cut, cutWidth int) {
	lastSep, sepWidth, fit, fitWidth, used := 0, 0, 0, 0, 0
	g := uniseg.NewGraphemes(word)
	for g.Next() {
		from, to := g.Positions()
		if used += g.Width(); used > width {
			break
		}
		fit, fitWidth = to, used
		if strings.Contains(separators, word[from:to]) {
			lastSep, sepWidth = to, used
		}
	}
	switch {
	case lastSep > 0:
		return lastSep, sepWidth
	case fit > 0:
		return fit, fitWidth
	}
	_, rest, w, _ := uniseg.FirstGraphemeClusterInString(word, -1)
	return len(word) - len(rest), w
}

// longestPiece is the width in columns of the longest piece word can be cut into by
// breakAt: the longest run up to and including a separator, or to the word's end.
func longestPiece(word string) int {
	longest, n := 0, 0
	g := uniseg.NewGraphemes(word)
	for g.Next() {
		n += g.Width()
		if strings.Contains(separators, g.Str()) {
			longest, n = max(longest, n), 0
		}
	}
	return max(longest, n)
}

// block prints text (escaped) wrapped to the style's width: the first line after indent
// spaces, the following ones two spaces further in. paint styles each line's text.
func (s style) block(w io.Writer, indent int, text string, paint func(string) string) {
	width := 0
	if s.width > 0 {
		width = max(s.width-indent-2, minWidth/2)
	}
	for i, l := range wrap(wording.Escape(s.hide.String(text)), width) {
		lead := indent
		if i > 0 {
			lead += 2
		}
		fmt.Fprintln(w, strings.Repeat(" ", lead)+paint(l))
	}
}

// table prints rows as left-aligned columns separated by two spaces, each line after
// indent spaces. Cells are escaped. When the table is wider than the style's width, the
// widest columns shrink and their cells wrap onto continuation lines, so no line is
// longer than the width. colourise, if not nil, styles a piece of a cell before padding
// (so escape codes do not break alignment); after, if not nil, runs after each row's
// lines (for the evidence printed under a row).
func (s style) table(w io.Writer, indent int, rows [][]string, colourise func(row, col int, cell string) string, after func(row int)) {
	for ri, lines := range s.tableLines(indent, rows, colourise) {
		for _, l := range lines {
			fmt.Fprintln(w, l)
		}
		if after != nil {
			after(ri)
		}
	}
}

// tableLines renders table's lines, grouped per row.
func (s style) tableLines(indent int, rows [][]string, colourise func(row, col int, cell string) string) [][]string {
	cells := make([][]string, len(rows))
	var widths, words, pieces []int
	for ri, r := range rows {
		cells[ri] = make([]string, len(r))
		for ci, cell := range r {
			cells[ri][ci] = wording.Escape(s.hide.String(cell))
			if ci >= len(widths) {
				widths, words, pieces = append(widths, 0), append(words, 0), append(pieces, 0)
			}
			widths[ci] = max(widths[ci], textWidth(cells[ri][ci]))
			for _, word := range strings.Fields(cells[ri][ci]) {
				words[ci] = max(words[ci], textWidth(word))
				pieces[ci] = max(pieces[ci], longestPiece(word))
			}
		}
	}
	if s.width > 0 && len(widths) > 0 {
		shrink(widths, words, pieces, s.width-indent-2*(len(widths)-1))
	}
	lead := strings.Repeat(" ", indent)
	out := make([][]string, len(rows))
	for ri, r := range cells {
		parts := make([][]string, len(r))
		height := 1
		for ci, cell := range r {
			parts[ci] = wrap(cell, widths[ci])
			height = max(height, len(parts[ci]))
		}
		for li := range height {
			var b strings.Builder
			b.WriteString(lead)
			for ci := range r {
				piece := ""
				if li < len(parts[ci]) {
					piece = parts[ci][li]
				}
				text := piece
				if ci < len(r)-1 {
					text = pad(piece, widths[ci])
				}
				if colourise != nil && piece != "" {
					text = colourise(ri, ci, piece) + text[len(piece):]
				}
				if ci > 0 {
					b.WriteString("  ")
				}
				b.WriteString(text)
			}
			out[ri] = append(out[ri], strings.TrimRight(b.String(), " "))
		}
	}
	return out
}

// shrink narrows columns until they fit in avail, in three passes, each going only as
// far as it must. First down to each column's longest word, so cells wrap between words
// (a word longer than half the width, such as a long URL, is not kept whole); then down
// to its longest piece between separators (url+ / preferredTransport), so a word is cut
// only where it has a break point; then, if that is not enough, the widest columns
// whatever their words (no column goes below 4 runes, so a very narrow width leaves the
// table at that minimum). words[i] and pieces[i] are column i's longest word and piece.
func shrink(widths, words, pieces []int, avail int) {
	const narrowest = 4
	total := 0
	for _, w := range widths {
		total += w
	}
	for _, floor := range []func(i int) int{
		func(i int) int {
			if words[i] > avail/2 {
				return max(pieces[i], narrowest)
			}
			return max(words[i], narrowest)
		},
		func(i int) int { return max(pieces[i], narrowest) },
		func(int) int { return narrowest },
	} {
		for total > avail {
			widest := -1
			for i, w := range widths {
				if w > floor(i) && (widest < 0 || w > widths[widest]) {
					widest = i
				}
			}
			if widest < 0 {
				break
			}
			widths[widest]--
			total--
		}
	}
}

// writeFindings prints findings, one block each: severity, code and interface, then the
// message and the fix, indented.
func writeFindings(w io.Writer, st style, findings []card.Finding) {
	for _, f := range findings {
		where := ""
		if f.Interface != "" {
			where = " " + st.dim("("+wording.Escape(f.Interface)+")")
		}
		fmt.Fprintf(w, "%s %s%s\n", st.severity(f.Severity), st.bold(wording.Escape(f.Code)), where)
		st.block(w, 8, f.Message, plain)
		if f.Fix != "" {
			st.block(w, 8, "fix: "+f.Fix, verdict(st.dim, "fix:"))
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
			parts = append(parts, counted(n[sev], string(sev)))
		}
	}
	if len(parts) == 0 {
		return "no findings"
	}
	return strings.Join(parts, ", ")
}

// counted renders "1 error" / "2 errors" ("info" does not take an s).
func counted(n int, word string) string {
	if word == "info" {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %s", n, wording.Plural(n, word, word+"s"))
}
