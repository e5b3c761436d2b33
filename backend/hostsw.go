package backend

import (
	"path/filepath"

	"github.com/clawboo/desktop/backend/hosts"
)

// EnvSSHConfig names an ssh configuration file used instead of the
// person's ~/.ssh/config (which ssh reads from the account's home whatever
// $HOME says): for tests and for a person who keeps Clawboo's hosts apart.
const EnvSSHConfig = "CLAWBOO_SSH_CONFIG"

// openHosts makes the hosts service: the person's own ssh, found as every
// program is, with Clawboo's known_hosts and shared connections under the
// home.
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
	}
	return hosts.Open(hosts.Options{
		Store: b.Store, SSH: ssh, Log: b.log.With("part", "hosts"), Programs: b.hostPrograms,
		Version: opts.Version, Builds: hosts.Builds(opts.HostBuilds),
	})
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
