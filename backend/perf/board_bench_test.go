package perf

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// boardTasks is the board size the board figures are measured at.
const boardTasks = 10_000

// seedBoard creates n tasks through the API, 16 requests at a time, every
// tenth cancelled (a long finished column too).
func seedBoard(b *testing.B, p *proc, n int) {
	b.Helper()
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				body := fmt.Sprintf(`{"title":"bench task %05d","kind":"research","priority":%d}`, i, i%3)
				resp, err := client.Post(p.url+"/api/board", "application/json", strings.NewReader(body))
				if err != nil {
					failed.Store(err.Error())
					return
				}
				var out struct{ Task struct{ ID string } }
				err = json.NewDecoder(resp.Body).Decode(&out)
				resp.Body.Close()
				if err != nil || resp.StatusCode != 201 {
					failed.Store(fmt.Sprintf("create: %d %v", resp.StatusCode, err))
					return
				}
				if i%10 == 0 {
					req, _ := http.NewRequest("PATCH", p.url+"/api/board/"+out.Task.ID, strings.NewReader(`{"status":"cancelled"}`))
					req.Header.Set("Content-Type", "application/json")
					resp, err := client.Do(req)
					if err != nil {
						failed.Store(err.Error())
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
		}()
	}
	wg.Wait()
	if f := failed.Load(); f != nil {
		b.Fatal(f)
	}
}

// BenchmarkBoardAPI10k times the board's reads at 10,000 tasks beside
// GET /api/health on the same server: one column's first page (what the
// board reads per column, with the counts over the whole filter), a
// finished column newest first, a title search, and the whole first load
// (one page per column, seven requests as the page sends them).
func BenchmarkBoardAPI10k(b *testing.B) {
	p := start(b, binary(b))
	firstOK(b, p.url+"/api/runtimes", time.Now())
	seedBoard(b, p, boardTasks)
	const n = 500
	h50, _ := percentiles(b, p.url+"/api/health", n)
	for _, c := range []struct{ name, query, target string }{
		{"todo column page (limit 100 + counts)", "status=todo&limit=100", "<= 10 ms"},
		{"cancelled column page, newest first", "status=cancelled&limit=100&order=recent", "<= 10 ms"},
		{"title search (q)", "q=bench%20task%2009999&limit=100", "<= 20 ms"},
	} {
		p50, _ := percentiles(b, p.url+"/api/board?"+c.query, n)
		recordVs(b, fmt.Sprintf("GET /api/board %s p50 at %d tasks", c.name, boardTasks), "ms", ms(p50), ms(h50), c.target,
			p50 <= mustDuration(c.target))
	}
	statuses := []string{"backlog", "todo", "in_progress", "in_review", "blocked", "done", "cancelled"}
	ds := make([]time.Duration, 0, 100)
	for range 100 {
		t0 := time.Now()
		var wg sync.WaitGroup
		for _, s := range statuses {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := client.Get(p.url + "/api/board?limit=100&status=" + s)
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}()
		}
		wg.Wait()
		ds = append(ds, time.Since(t0))
	}
	m := median(ds)
	recordVs(b, fmt.Sprintf("board first load (7 column pages) p50 at %d tasks", boardTasks), "ms", ms(m), ms(h50), "<= 30 ms", m <= 30*time.Millisecond)
}

// mustDuration reads a target such as "<= 10 ms".
func mustDuration(target string) time.Duration {
	var v float64
	fmt.Sscanf(strings.TrimPrefix(target, "<= "), "%g", &v)
	return time.Duration(v * float64(time.Millisecond))
}
