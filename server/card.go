package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/a2abind/a2abind/card"
)

// buildCard derives the card from the served bindings, or verifies the hand-written one.
func (srv *Server) buildCard() error {
	raw := srv.o.cardJSON
	if srv.o.agentCard != nil {
		b, err := json.Marshal(srv.o.agentCard)
		if err != nil {
			return errorf("marshal the agent card: %v", err)
		}
		raw = b
	}
	derived := raw == nil
	if derived {
		b, err := srv.deriveCard()
		if err != nil {
			return err
		}
		raw = b
	}
	c, err := card.Parse(raw)
	if err != nil {
		return fmt.Errorf("server: card: %w", err)
	}
	if stray := c.ReadIssues(); len(stray) > 0 { // clients would read the card differently
		return fmt.Errorf("server: card: %w (rename or remove it)", stray[0])
	}
	if e := c.Refused(); e != nil { // a2a-go clients could not read what is published
		return fmt.Errorf("server: card: %w (%s)", e, e.Finding().Fix)
	}
	matched, err := srv.verify(c)
	if !derived {
		caps, capErr := srv.checkClaims(c) // capability.go
		err = errors.Join(err, capErr)
		srv.capabilities = caps
	}
	if err != nil {
		if derived {
			return fmt.Errorf("server: derived card does not match the bindings (a bug): %w", err)
		}
		return err
	}
	local := map[string]card.Interface{}
	for i, iface := range c.Interfaces {
		l := iface
		l.URL = matched[i].local
		local[localKey(iface)] = l
	}
	if raw, err = srv.signCard(raw); err != nil { // sign.go
		return err
	}
	srv.cardJSON, srv.card, srv.local = raw, c, local
	srv.etag = card.ETagOf(raw)
	srv.lastModified = time.Now().UTC().Truncate(time.Second)
	return nil
}

// localKey names a declared interface in srv.local.
func localKey(i card.Interface) string {
	return i.URL + "\x00" + string(i.Binding) + "\x00" + i.ProtocolVersion
}

// localOf is where the self-check probes a declared interface: the listener that serves
// it (probe.WithProbeVia, as guard --probe-via).
func (srv *Server) localOf(i card.Interface) (string, bool) {
	l, ok := srv.local[localKey(i)]
	return l.URL, ok
}

// agentCard is the card derived from what this server serves: every binding it serves,
// the capabilities it provides (provided), the agent info and security of the options.
func (srv *Server) agentCard() *a2a.AgentCard {
	o := &srv.o
	ac := &a2a.AgentCard{
		Name: o.name, Description: o.description, Version: o.version,
		Capabilities:         o.provided(),
		DefaultInputModes:    []string{"text/plain"},
		DefaultOutputModes:   []string{"text/plain"},
		Skills:               o.skills,
		SecuritySchemes:      o.securitySchemes,
		SecurityRequirements: o.securityReqs,
	}
	if ac.Skills == nil {
		ac.Skills = []a2a.AgentSkill{}
	}
	for _, s := range srv.served {
		ac.SupportedInterfaces = append(ac.SupportedInterfaces, &a2a.AgentInterface{
			URL: s.public, ProtocolBinding: s.binding, ProtocolVersion: a2a.ProtocolVersion(s.version),
			Tenant: o.tenant,
		})
	}
	return ac
}

func (srv *Server) deriveCard() ([]byte, error) {
	ac := srv.agentCard()
	// The handler refuses what the card does not declare (a2asrv.WithCapabilityChecks).
	caps := ac.Capabilities
	srv.capabilities = &caps
	if !srv.o.v03 {
		return json.MarshalIndent(ac, "", "  ")
	}
	p, ok := a2av0.NewStaticAgentCardProducer(ac).(a2asrv.AgentCardJSONProducer)
	if !ok {
		return nil, errorf("a2a-go's v0.3 card producer writes no JSON")
	}
	return p.CardJSON(context.Background())
}

// serveCard publishes the card only while the server is ready: 503 with Retry-After
// before the self-check passed and after shutdown started (card.ServeCard, the one
// card endpoint of serve and guard: ETag, Last-Modified, Cache-Control, HEAD and 304).
func (srv *Server) serveCard(w http.ResponseWriter, r *http.Request) {
	if !srv.ready.Load() {
		why := "the self-check of the declared interfaces has not passed yet"
		if srv.stopping.Load() {
			why = "the agent is shutting down"
		}
		card.ServeCard(w, r, nil, card.Withheld{Why: "agent card not published: " + why, RetryAfter: time.Second})
		return
	}
	card.ServeCard(w, r, &card.Publication{Body: srv.cardJSON, ETag: srv.etag, Modified: srv.lastModified, CacheControl: srv.cacheCtrl},
		card.Withheld{})
}
