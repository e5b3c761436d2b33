package hosts

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// maxInstallLine bounds one event of a host's install stream.
const maxInstallLine = 1 << 20

// HostRefused is a host's server's own refusal (its status and words).
type HostRefused struct {
	Code int
	Msg  string
}

func (e *HostRefused) Error() string { return e.Msg }

// InstallRuntime installs runtime rt on the host through its own
// Clawboo's install stream — npm or pipx there, as that user's own, the
// same stream a runtime is installed with here — handing each event (its
// JSON) to each; then the host is looked at again, so its runtimes name
// the new one. A host that is not ready is refused in words; what the
// host's server refuses (an unknown runtime, one built in, an install
// already going) is a *HostRefused.
func (s *Service) InstallRuntime(ctx context.Context, id, rt string, each func(event []byte)) error {
	c, err := s.Connect(ctx, id)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, "POST", "http://localhost/api/runtimes/"+url.PathEscape(rt)+"/install", nil)
	if err != nil {
		return err
	}
	res, err := c.Remote.Do(req)
	if err != nil {
		s.Forget(id)
		return fmt.Errorf("%s: %w", c.Host.Name, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		_ = json.NewDecoder(io.LimitReader(res.Body, 64<<10)).Decode(&e)
		return &HostRefused{Code: res.StatusCode, Msg: c.Host.Name + ": " + orWords(e.Error, res.Status)}
	}
	defer s.Check(id)
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), maxInstallLine)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data:"); ok && json.Valid([]byte(strings.TrimSpace(data))) {
			each([]byte(strings.TrimSpace(data)))
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: the install's stream broke: %w", c.Host.Name, err)
	}
	return nil
}
