package backend

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/hosts"
	"github.com/clawboo/desktop/backend/mcp"
	"github.com/clawboo/desktop/backend/remote"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/supervisor"
)

// EnvSSHConfig names an ssh configuration file used instead of the
// person's ~/.ssh/config (which ssh reads from the account's home whatever
// $HOME says): for tests and for a person who keeps Clawboo's hosts apart.
const EnvSSHConfig = "CLAWBOO_SSH_CONFIG"

// openHosts makes the hosts service: the person's own ssh, found as every
// program is, with Clawboo's known_hosts and shared connections under the
// home; the placer that runs work there; and the door's answer to "can
// this agent's host take work now?".
func (b *Backend) openHosts(opts Options) *hosts.Service {
	ssh := &hosts.SSH{
		Find: func(name string) (string, bool) {
			if b.resolver == nil {
				return "", false
			}
			return b.resolver.Find(name)
		},
		Environ: opts.Environ,
		Dir:     filepath.Join(b.Config.Home, "ssh"),
		Config:  opts.Getenv(EnvSSHConfig),
		// Runs on hosts reach this computer's MCP servers (its API) back
		// through their connection.
		ReachBack: func() string { return strings.TrimPrefix(b.BaseURL(), "http://") },
	}
	svc := hosts.Open(hosts.Options{
		Store: b.Store, SSH: ssh, Log: b.log.With("part", "hosts"), Programs: b.hostPrograms,
		Version: opts.Version, Builds: hosts.Builds(opts.HostBuilds), Recheck: opts.HostRecheck,
		Mock: b.Config.EnableMock,
	})
	b.placer = remote.New(remote.Options{
		Hosts: svc, Worktrees: b.Worktrees, Board: b.Board, Log: b.log.With("part", "remote"),
		Keys: b.runtimeKeys, Approvals: b.Approvals,
		Attach: func(ctx context.Context, req executor.StartRequest) (string, map[string]string, bool, error) {
			a, ok, err := b.runAttach(ctx, req)
			if !ok || err != nil {
				return "", nil, ok, err
			}
			return a.Clients[mcp.ClientCodex].Env[mcp.TokenEnv], a.Paths(), true, nil
		},
	})
	b.door.HostWait = b.hostWait
	go b.wakeHostWork(svc) // ends when the service closes its events
	return svc
}

// runtimeKeys are a runtime's keys from the vault, by the names its
// catalog card reads (a host's run takes them with it, in memory only).
func (b *Backend) runtimeKeys(ctx context.Context, rt executor.ID) map[string]string {
	out := map[string]string{}
	if b.Catalog == nil || b.Vault == nil {
		return out
	}
	d, ok := b.Catalog.Descriptor(rt)
	if !ok {
		return out
	}
	names := d.AltEnvVars
	if d.EnvVar != nil {
		names = append([]string{*d.EnvVar}, names...)
	}
	for _, n := range names {
		if v, _ := b.Vault.Resolve(ctx, string(rt), n); v != "" {
			out[n] = v
		}
	}
	return out
}

// hostWindow is the window work waiting for a host is deferred under.
func hostWindow(id string) string { return "host:" + id }

// hostExists accepts a host an agent is placed on.
func (b *Backend) hostExists(ctx context.Context, id string) bool {
	if b.Hosts == nil {
		return false
	}
	_, err := b.Hosts.Get(ctx, id)
	return err == nil
}

// agentHost is the host an agent's work goes to (false: this computer):
// its own placement, else, in a team's work, the team's.
func (b *Backend) agentHost(ctx context.Context, agentID, teamID string) (hosts.Host, bool, error) {
	if b.Agents == nil || b.Hosts == nil || agentID == "" {
		return hosts.Host{}, false, nil
	}
	ag, err := b.Agents.Get(ctx, agentID)
	if err != nil {
		return hosts.Host{}, false, nil
	}
	if ag.HostID == nil && teamID != "" && b.Teams != nil {
		if t, err := b.Teams.Get(ctx, teamID); err == nil && t.HostID != nil {
			h, err := b.Hosts.Get(ctx, *t.HostID)
			if err != nil {
				return hosts.Host{}, true, fmt.Errorf("the team %s runs on a host that was removed: choose where it runs again", t.Name)
			}
			return h, true, nil
		}
	}
	if ag.HostID == nil {
		return hosts.Host{}, false, nil
	}
	h, err := b.Hosts.Get(ctx, *ag.HostID)
	if err != nil {
		return hosts.Host{}, true, fmt.Errorf("%s is placed on a host that was removed: place it again on its page", ag.Name)
	}
	return h, true, nil
}

// hostWait is the door's question: why the agent's host cannot take work
// now ("" when it can, or the agent runs here).
func (b *Backend) hostWait(ctx context.Context, agentID, teamID string) (string, string) {
	h, placed, err := b.agentHost(ctx, agentID, teamID)
	if !placed || err != nil {
		return "", "" // here, or refused by Place in words
	}
	if why := h.NotReady(); why != "" {
		return hostWindow(h.ID), why
	}
	if n := b.liveOn(h.ID); h.Concurrency > 0 && n >= h.Concurrency {
		return hostWindow(h.ID), fmt.Sprintf("%s is running %d of its %d runs at once", h.Name, n, h.Concurrency)
	}
	// Reached now (the connection the run then uses), so a host that went
	// away since it was checked holds the work instead of failing it.
	if why := b.Hosts.Reach(ctx, h.ID); why != "" {
		return hostWindow(h.ID), why
	}
	return "", ""
}

// liveOn counts the live runs on a host.
func (b *Backend) liveOn(hostID string) int {
	n := 0
	for _, r := range b.Supervisor.LiveRuns() {
		if r.HostID != nil && *r.HostID == hostID {
			n++
		}
	}
	return n
}

// place is the supervisor's Place: an agent placed on a host runs there,
// through the placer's adapter.
func (b *Backend) place(ctx context.Context, agentID, teamID string, a executor.Adapter) (executor.Adapter, string, error) {
	h, placed, err := b.agentHost(ctx, agentID, teamID)
	if !placed {
		return a, "", nil
	}
	if err != nil {
		return nil, "", &supervisor.Refusal{Reason: "host_gone", Msg: err.Error()}
	}
	if a.Capabilities().RuntimeClass == executor.ConnectedSubstrate {
		return nil, "", &supervisor.Refusal{Reason: "connected_substrate", Msg: a.Name() + " runs in its own Gateway, not on a host"}
	}
	return b.placer.Adapter(a, h.ID), h.ID, nil
}

// wakeHostWork starts the work waiting for a host when the host comes
// back, and when a run there ends (a slot freed).
func (b *Backend) wakeHostWork(svc *hosts.Service) {
	ctx := context.Background()
	hs := svc.Events.Subscribe(16)
	defer hs.Close()
	hs.Only(func(h hosts.Host) bool { return h.State == hosts.Ready })
	runs := b.Supervisor.Updates.Subscribe(64)
	defer runs.Close()
	runs.Only(func(r store.Run) bool { return r.HostID != nil && !r.Live() })
	for {
		select {
		case h, ok := <-hs.C():
			if !ok {
				return
			}
			b.Quota.Wake(ctx, hostWindow(h.ID))
		case r, ok := <-runs.C():
			if !ok {
				return
			}
			b.Quota.Wake(ctx, hostWindow(*r.HostID))
		}
	}
}

// hostPrograms are the catalog's runtimes a host is searched for: each
// runtime's program by name (a person's own agents, named by a path on
// this computer, are not looked for).
func (b *Backend) hostPrograms() map[string]string {
	out := map[string]string{}
	if b.Catalog == nil {
		return out
	}
	for _, d := range b.Catalog.ListDescriptors() {
		if d.HealthBin != nil && !filepath.IsAbs(*d.HealthBin) {
			out[string(d.ID)] = *d.HealthBin
		}
	}
	return out
}
