//go:build unix

package acp

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/fakes/fakeresponses"
)

// fakeOpenAIEnv makes this test binary the fake OpenAI Responses API
// (backend/fakes/fakeresponses), answering every request with that many
// one-word text deltas. It runs as a process apart so that its CPU is
// neither the host's (RUSAGE_SELF) nor the agent's (RUSAGE_CHILDREN, read
// before it is reaped).
const fakeOpenAIEnv = "ACP_BENCH_FAKE_OPENAI_CHUNKS"

const turnsPerOp = 5

// serveFakeOpenAI prints its base URL and serves until stdin closes.
func serveFakeOpenAI(chunks string) int {
	n, err := strconv.Atoi(chunks)
	if err != nil || n < 1 || n > 100_000 {
		fmt.Fprintln(os.Stderr, "bad chunk count", chunks)
		return 2
	}
	words := make([]string, n)
	for i := range words {
		words[i] = "word "
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fake := fakeresponses.New(fakeresponses.Rule{Steps: []fakeresponses.Step{{Text: strings.Join(words, ""), Chunks: words}}})
	go func() { _ = http.Serve(ln, fake) }()
	fmt.Printf("http://%s\n", ln.Addr())
	_, _ = bufio.NewReader(os.Stdin).ReadString(0) // until the bench closes stdin
	return 0
}

// BenchmarkUpdateCPUBesideOpenCode is issue 28's CPU figure against a real
// agent: the pinned `opencode acp` (test/acp, CLAWBOO_TEST_ACP) answering
// one prompt whose model (the fake OpenAI, a process apart) streams 1,000
// text deltas. It reports the host's CPU (this process: reading, checking,
// mapping and consuming the updates) per 1,000 session/update text frames
// beside the agent's own CPU for the same turn (its process tree, reaped:
// RUSAGE_CHILDREN), and the ratio (target <= 1 %). One op is turnsPerOp
// turns (a turn takes about 5 s), so that one op is not one turn's noise.
func BenchmarkUpdateCPUBesideOpenCode(b *testing.B) {
	dir, ok := os.LookupEnv("CLAWBOO_TEST_ACP")
	if !ok {
		b.Skip("CLAWBOO_TEST_ACP is not set (make bench sets it to test/acp)")
	}
	bin := filepath.Join(dir, "node_modules", ".bin")
	provider := exec.Command(os.Args[0])
	provider.Env = append(os.Environ(), fakeOpenAIEnv+"=1000")
	stdin, _ := provider.StdinPipe()
	out, _ := provider.StdoutPipe()
	if err := provider.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = stdin.Close(); _ = provider.Wait() }()
	url, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatal("the fake provider did not start:", err)
	}
	user := b.TempDir()
	conf := filepath.Join(user, "opencode.json")
	cfg := `{"$schema":"https://opencode.ai/config.json","autoupdate":false,"share":"disabled",` +
		`"provider":{"openai":{"options":{"baseURL":"` + strings.TrimSpace(url) + `/v1"}}},"model":"openai/gpt-4o-mini",` +
		`"small_model":"openai/gpt-4o-mini"}`
	if err := os.WriteFile(conf, []byte(cfg), 0o644); err != nil {
		b.Fatal(err)
	}
	a := newAdapter(b, func(o *Options) {
		o.Spec = Spec{
			ID: "acp-opencode", Name: "OpenCode", Command: filepath.Join(bin, "opencode"), Args: []string{"acp"},
			EnvVars: []string{"OPENAI_API_KEY"}, PassEnv: []string{"OPENCODE_CONFIG"},
		}
		o.Environ = func() []string {
			return []string{"HOME=" + user, "PATH=" + bin + ":" + os.Getenv("PATH"), "OPENCODE_CONFIG=" + conf}
		}
		o.Key = func(_ context.Context, name string) string { return "sk-bench-not-a-key" }
	})
	work := b.TempDir()
	turn := func() int {
		evs, done := finish(b, start(b, a, "Say a thousand words.", work, nil))
		if done.Reason != executor.DoneSuccess {
			b.Fatalf("the turn: %+v", done)
		}
		n := 0
		for _, ev := range evs {
			if ev.Kind == executor.KindTextDelta {
				n++
			}
		}
		return n
	}
	turn() // opencode's first start sets up its own state
	updates := 0
	self0, kids0 := usage(syscall.RUSAGE_SELF), usage(syscall.RUSAGE_CHILDREN)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for range turnsPerOp {
			updates += turn()
		}
	}
	b.StopTimer()
	self, kids := usage(syscall.RUSAGE_SELF)-self0, usage(syscall.RUSAGE_CHILDREN)-kids0
	per := 1000 / float64(max(updates, 1))
	b.ReportMetric(float64(updates)/float64(b.N*turnsPerOp), "text-updates/turn")
	b.ReportMetric(float64(self.Microseconds())/1000*per, "host-cpu-ms/1000-updates")
	b.ReportMetric(float64(kids.Microseconds())/1000*per, "agent-cpu-ms/1000-updates")
	b.ReportMetric(100*float64(self)/float64(max(kids, 1)), "host-%-of-agent")
}
