package fakeresponses

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

type sse struct {
	Event string
	Data  map[string]any
}

func post(t *testing.T, url, body string) (*http.Response, []sse) {
	t.Helper()
	req, _ := http.NewRequest("POST", url+"/v1/responses", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer sk-test")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var evs []sse
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if e, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			evs = append(evs, sse{Event: e})
		} else if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			_ = json.Unmarshal([]byte(d), &evs[len(evs)-1].Data)
		}
	}
	return res, evs
}

const tools = `"tools":[{"type":"function","name":"exec_command"},{"type":"namespace","name":"mcp__clawboo-tasks","tools":[{"type":"function","name":"claim_task"}]}]`

func TestStepsFollowToolOutputs(t *testing.T) {
	f := New(Rule{Match: "claim", Steps: []Step{
		{Text: "Claiming.", Call: &Call{Tool: "tasks/claim_task$", Args: `{"taskId":"t1"}`}},
		{Text: "Said: {result}"},
	}})
	srv := httptest.NewServer(f)
	defer srv.Close()
	user := `{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>x</environment_context>"}]},` +
		`{"type":"message","role":"user","content":[{"type":"input_text","text":"please claim"}]}`
	_, evs := post(t, srv.URL, `{"model":"m","input":[`+user+`],`+tools+`}`)
	var order []string
	for i, e := range evs {
		order = append(order, e.Event)
		if e.Data["type"] != e.Event || e.Data["sequence_number"] != float64(i) {
			t.Fatalf("event %d: %+v", i, e)
		}
	}
	want := "response.created response.in_progress response.output_item.added response.content_part.added response.output_text.delta " +
		"response.output_text.done response.content_part.done response.output_item.done response.output_item.added " +
		"response.function_call_arguments.delta response.function_call_arguments.done response.output_item.done response.completed"
	if strings.Join(order, " ") != want {
		t.Fatalf("order %v", order)
	}
	call := evs[11].Data["item"].(map[string]any)
	if call["namespace"] != "mcp__clawboo-tasks" || call["name"] != "claim_task" || call["arguments"] != `{"taskId":"t1"}` {
		t.Fatalf("call %+v", call)
	}
	usage := evs[12].Data["response"].(map[string]any)["usage"].(map[string]any)
	if usage["total_tokens"].(float64) != usage["input_tokens"].(float64)+usage["output_tokens"].(float64) {
		t.Fatalf("usage %+v", usage)
	}
	// The call's output answers with the next step.
	out := `,{"type":"function_call","call_id":"c1","name":"claim_task"},{"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"claimed t1"}]}`
	_, evs = post(t, srv.URL, `{"model":"m","input":[`+user+out+`],`+tools+`}`)
	if evs[5].Event != "response.output_text.done" || evs[5].Data["text"] != "Said: claimed t1" {
		t.Fatalf("second step %+v", evs[5])
	}
	reqs := f.Requests()
	if len(reqs) != 2 || reqs[0].UserText != "please claim" || reqs[1].Outputs[0] != "claimed t1" || reqs[0].APIKey != "sk-test" ||
		strings.Join(reqs[0].Tools, ",") != "exec_command,mcp__clawboo-tasks/claim_task" {
		t.Fatalf("log %+v", reqs)
	}
}

func TestFailures(t *testing.T) {
	f := New(Rule{Match: "http", Steps: []Step{{Status: 400}}}, Rule{Match: "stream", Steps: []Step{{Text: "part", Fail: "boom"}}})
	srv := httptest.NewServer(f)
	defer srv.Close()
	msg := func(s string) string {
		return `{"model":"m","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"` + s + `"}]}]}`
	}
	res, _ := post(t, srv.URL, msg("http fail"))
	if res.StatusCode != 400 {
		t.Fatalf("status %d", res.StatusCode)
	}
	_, evs := post(t, srv.URL, msg("stream fail"))
	last := evs[len(evs)-1]
	if last.Event != "response.failed" || last.Data["response"].(map[string]any)["error"].(map[string]any)["message"] != "boom" {
		t.Fatalf("last %+v", last)
	}
}
