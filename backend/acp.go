package backend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/clawboo/desktop/backend/adapters/acp"
	"github.com/clawboo/desktop/backend/api"
	"github.com/clawboo/desktop/backend/approval"
	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/mcp"
	"github.com/clawboo/desktop/backend/runtimes"
	"github.com/clawboo/desktop/backend/store"
)

// acpSetting is where a person's own ACP agents are kept (a JSON list).
const acpSetting = "acp.agents"

// savedACP is one stored ACP agent.
type savedACP struct {
	ID   executor.ID `json:"id"`
	Name string      `json:"name"`
	runtimes.ACPCommand
}

// acpAgents adds and removes a person's ACP agents: the catalog lists
// them, the registry runs them, the settings keep them. One at a time.
type acpAgents struct {
	b    *Backend
	opts Options
	mu   sync.Mutex
}

var _ api.ACPAgents = (*acpAgents)(nil)

// openACP registers an adapter for every ACP agent of the catalog, after
// listing the person's own from the settings.
func (b *Backend) openACP(ctx context.Context, opts Options) (*acpAgents, error) {
	raw, err := b.Store.GetSetting(ctx, acpSetting)
	if errors.Is(err, store.ErrNotFound) {
		raw, err = "", nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the ACP agents: %w", err)
	}
	var saved []savedACP
	if raw != "" {
		if err := json.Unmarshal([]byte(raw), &saved); err != nil {
			b.log.Warn("the stored ACP agents could not be read; none are listed", "err", err)
		}
	}
	for _, s := range saved {
		if err := b.Catalog.AddACP(runtimes.SavedACP(s.ID, s.Name, s.ACPCommand)); err != nil {
			b.log.Warn("a stored ACP agent is not listed", "runtime", s.ID, "err", err)
		}
	}
	for _, d := range b.Catalog.ListDescriptors() {
		if d.Family != runtimes.FamilyACP {
			continue
		}
		if err := b.Registry.Register(b.acpAdapter(d, opts)); err != nil {
			return nil, fmt.Errorf("register %s: %w", d.ID, err)
		}
	}
	return &acpAgents{b: b, opts: opts}, nil
}

// acpAdapter builds the runtime of one ACP agent: its program found by the
// resolver, its keys (its own names and its providers') from the vault as
// this runtime, the run's MCP servers, and its questions asked through the
// approvals queue.
func (b *Backend) acpAdapter(d runtimes.Descriptor, opts Options) *acp.Adapter {
	vars := slices.Clone(d.ACP.EnvVars)
	for _, id := range d.Providers {
		if p, ok := config.ProviderByID(id); ok && p.EnvVar != "" && !slices.Contains(vars, p.EnvVar) {
			vars = append(vars, p.EnvVar)
		}
	}
	return acp.New(acp.Options{
		Spec: acp.Spec{ID: d.ID, Name: d.Name, Command: d.ACP.Command, Args: d.ACP.Args, EnvVars: vars, PassEnv: d.ACP.PassEnv},
		Find: func(name string) (string, bool) {
			if b.resolver == nil {
				return "", false
			}
			return b.resolver.Find(name)
		},
		Environ: opts.Environ,
		Key: func(ctx context.Context, envVar string) string {
			k, _ := b.Vault.Resolve(ctx, string(d.ID), envVar)
			return k
		},
		Bridge: opts.Bridge,
		Attach: func(ctx context.Context, req executor.StartRequest) (acp.MCP, bool, error) {
			a, ok, err := b.runAttach(ctx, req)
			if !ok || err != nil {
				return acp.MCP{}, false, err
			}
			return acp.MCP{URLs: a.URLs, Token: a.Clients[mcp.ClientCodex].Env[mcp.TokenEnv]}, true, nil
		},
		Ask: b.askACP,
		Log: b.log.With("part", "acp", "runtime", string(d.ID)),
	})
}

// askACP puts an ACP agent's permission request (kind tool) or terminal
// command (kind command) to a person through the approvals queue. No queue,
// or a request that cannot be recorded, is an error: the adapter reads it
// as a denial.
func (b *Backend) askACP(ctx context.Context, q acp.Question) (acp.Answer, error) {
	if b.Approvals == nil {
		return acp.Answer{}, errors.New("the approvals queue is not running")
	}
	req := approval.Request{
		Kind: approval.KindTool, Title: "Allow " + q.Title, Tool: q.Tool, Args: q.Args, Folder: q.Folder,
		AgentID: q.Agent, TeamID: q.Team, RunID: q.RunID, Always: q.Always,
	}
	if q.Kind == acp.AskCommand {
		req.Kind, req.Title, req.Command, req.Tool, req.Args = approval.KindCommand, q.Title, q.Command, "", ""
	}
	got, err := b.Approvals.Ask(ctx, req, approval.DefaultTTL)
	if err != nil {
		return acp.Answer{}, err
	}
	switch got.Status {
	case approval.Approved:
		if got.Scope == approval.ScopeSession && q.Always {
			return acp.Answer{Outcome: acp.AllowedAlways, Note: got.Note}, nil
		}
		return acp.Answer{Outcome: acp.Allowed, Note: got.Note}, nil
	case approval.Denied:
		return acp.Answer{Outcome: acp.Denied, Note: got.Note}, nil
	default:
		return acp.Answer{Outcome: acp.Expired, Note: got.Note}, nil
	}
}

// Add checks, lists, registers and stores a person's ACP agent.
func (s *acpAgents) Add(ctx context.Context, name, command string, args, envVars []string) (runtimes.Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.b
	find := func(n string) (string, bool) { return "", false }
	if b.resolver != nil {
		find = b.resolver.Find
	}
	d, err := runtimes.CustomACP(name, command, args, envVars, find, func(id executor.ID) bool {
		_, reg := b.Registry.Get(id)
		return b.Catalog.Taken(id) || reg
	})
	if err != nil {
		return runtimes.Entry{}, err
	}
	if err := b.Catalog.AddACP(d); err != nil {
		return runtimes.Entry{}, err
	}
	if err := b.Registry.Register(b.acpAdapter(d, s.opts)); err != nil {
		_, _ = b.Catalog.RemoveACP(d.ID)
		return runtimes.Entry{}, err
	}
	if err := s.save(ctx); err != nil {
		_, _ = b.Catalog.RemoveACP(d.ID)
		b.Registry.Unregister(d.ID)
		return runtimes.Entry{}, err
	}
	b.runtimesChanged.Publish(struct{}{})
	e, _ := b.Catalog.Entry(ctx, d.ID)
	return e, nil
}

// Remove drops a person's ACP agent that no agent runs on; its live runs
// go on to their end.
func (s *acpAgents) Remove(ctx context.Context, id executor.ID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.b
	d, ok := b.Catalog.Descriptor(id)
	if !ok || d.Family != runtimes.FamilyACP {
		return runtimes.ErrUnknownRuntime
	}
	if d.ACP == nil || !d.ACP.Custom {
		return runtimes.ErrNotCustom
	}
	if b.Agents != nil {
		list, err := b.Agents.List(ctx)
		if err != nil {
			return err
		}
		var users []string
		for _, a := range list {
			if a.Runtime == string(id) {
				users = append(users, a.Name)
			}
		}
		if len(users) > 0 {
			return fmt.Errorf("%w: %s; move them to another runtime first", api.ErrACPInUse, strings.Join(users, ", "))
		}
	}
	if _, err := b.Catalog.RemoveACP(id); err != nil {
		return err
	}
	b.Registry.Unregister(id)
	if err := s.save(ctx); err != nil {
		return err
	}
	b.runtimesChanged.Publish(struct{}{})
	return nil
}

// save stores the person's ACP agents as the catalog lists them now.
func (s *acpAgents) save(ctx context.Context) error {
	var out []savedACP
	for _, d := range s.b.Catalog.ListDescriptors() {
		if d.ACP != nil && d.ACP.Custom {
			out = append(out, savedACP{ID: d.ID, Name: d.Name, ACPCommand: *d.ACP})
		}
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return err
	}
	if err := s.b.Store.PutSetting(ctx, acpSetting, string(raw), time.Now().UnixMilli()); err != nil {
		return fmt.Errorf("store the ACP agents: %w", err)
	}
	return nil
}
