package orchestrate

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/clawboo/desktop/backend/executor"
)

func TestParseTagsPlansAndDelegates(t *testing.T) {
	got := parseTags(`Plan:
<plan><step to="@Coder">write the parser</step>
<step to="Researcher">check the spec</step></plan>
and <delegate to="@Writer">document it</delegate> <delegate to="">x</delegate> <delegate>no target</delegate>`)
	want := []tagged{{to: "@Coder", task: "write the parser", plan: 1}, {to: "Researcher", task: "check the spec", plan: 1}, {to: "@Writer", task: "document it"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v", got)
	}
	if n := len(parseTags("no tags, <delegate to=\"@A\">unclosed")); n != 0 {
		t.Fatalf("%d from an unclosed tag", n)
	}
}

func TestSessionsSendIsADelegation(t *testing.T) {
	in, _ := json.Marshal(map[string]string{"sessionKey": "agent:coder-1a2b:main", "message": "fix the build"})
	d, ok := sessionsSend(executor.ToolCall("c1", "sessions_send", in))
	if !ok || d.Assignee != "coder-1a2b" || d.Task != "fix the build" {
		t.Fatalf("%+v %v", d, ok)
	}
	for _, bad := range []executor.Event{
		executor.ToolCall("c2", "sessions_list", in),
		executor.ToolCall("c3", "sessions_send", json.RawMessage(`{"sessionKey":"main","message":"x"}`)),
		executor.ToolCall("c4", "sessions_send", json.RawMessage(`{"sessionKey":"agent:a:b","message":"  "}`)),
		executor.Text("sessions_send"),
	} {
		if _, ok := sessionsSend(bad); ok {
			t.Fatalf("%+v read as a delegation", bad)
		}
	}
}
