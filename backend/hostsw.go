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
	return hosts.Open(b.Store, ssh, b.log.With("part", "hosts"))
}
