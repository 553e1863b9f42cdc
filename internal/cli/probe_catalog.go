package cli

// probe --catalog URL: the agents an AI Catalog or an RFC 9727 API catalog lists,
// probed as a --targets run.

import (
	"context"
	"fmt"
	"time"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/discovery"
	"github.com/a2abind/a2abind/probe"
)

// listed is what a catalog lists: agents by URL (probed as targets), agents with an
// inline card, and the entries refused.
type listed struct {
	targets []string
	inline  []discovery.Agent
	refused []discovery.Refusal
}

// others counts the rows that are not targets: inline agents and refused entries.
func (l listed) others() int { return len(l.inline) + len(l.refused) }

// names are the inline agents' and the refused entries' names, as their rows show them.
func (l listed) names() []string {
	out := make([]string, 0, len(l.inline)+len(l.refused))
	for _, a := range l.inline {
		out = append(out, a.Target)
	}
	for _, r := range l.refused {
		out = append(out, r.Entry)
	}
	return out
}

// listCatalog reads f.Catalog and the catalogs it nests over the engine's connections,
// with the dial policy of the connection flags. The headers go to the catalog's origin;
// with headers, a listed agent must be on that origin or a --credential-host, as the
// catalog (not the user) names it and its card fetch would carry them.
func listCatalog(ctx context.Context, f *probeOptions, e *probe.Engine, probeOpts []probe.Option) (listed, error) {
	conn, err := f.Conn.conn(nil) // probeRun hid its secrets
	if err != nil {
		return listed{}, err
	}
	o := discovery.Options{Client: e.HTTPClient(probeOpts...), Header: conn.Header, Dial: conn.Dial}
	if len(conn.Header) > 0 {
		creds := addr.NewCredentialPolicy(addr.OriginOf(f.Catalog), conn.CredentialHosts...)
		o.Allow = func(u string) error {
			if creds.AllowsURL(u) {
				return nil
			}
			return fmt.Errorf("%s is not on the catalog's origin, and --header values go only there and to --credential-host hosts (add one, or probe without headers)", u)
		}
	}
	res, err := discovery.Catalog(ctx, f.Catalog, o)
	if err != nil {
		return listed{}, fmt.Errorf("--catalog: %w", err)
	}
	l := listed{refused: res.Refused}
	for _, a := range res.Agents {
		if a.Card != nil {
			l.inline = append(l.inline, a)
			continue
		}
		l.targets = append(l.targets, a.Target)
	}
	if len(res.Agents) == 0 && len(res.Refused) == 0 {
		return listed{}, fmt.Errorf("--catalog %s lists no A2A agent (no entry of type %s, %d of other types)",
			f.Catalog, discovery.TypeAgentCard, res.Ignored)
	}
	return l, nil
}

// probeOthers reports the refused entries (card not obtainable: the reason) and probes
// the inline cards, each within timeout (0: none).
func (l listed) probeOthers(ctx context.Context, e *probe.Engine, timeout time.Duration, opts []probe.Option, emit func(probe.TargetResult)) {
	for _, r := range l.refused {
		emit(probe.TargetResult{Target: r.Entry, Err: fmt.Errorf("listed in %s, not probed: %w", r.Catalog, r.Err)})
	}
	for _, a := range l.inline {
		start := time.Now()
		c, err := card.Parse(a.Card)
		if err != nil {
			emit(probe.TargetResult{Target: a.Target, Err: fmt.Errorf("the inline card (data) of %s: %w", a.Catalog, err)})
			continue
		}
		tctx, cancel := ctx, context.CancelFunc(func() {})
		if timeout > 0 {
			tctx, cancel = context.WithTimeout(ctx, timeout)
		}
		results := e.Card(tctx, c, opts...)
		cancel()
		emit(probe.TargetResult{Target: a.Target, Card: c, Results: results, Duration: time.Since(start)})
	}
}
