package native

import (
	"context"
	"encoding/json"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/llm"
)

// DelegateTool is the local tool a team leader's turn delegates with. It is
// offered only when the host set StartRequest.Delegate (a leader's turn),
// so no other run can even name it.
const DelegateTool = "delegate"

func delegateDef() llm.Tool {
	return llm.Tool{
		Name: DelegateTool,
		Description: "Hand a piece of work to a member of your team. It becomes a board task the member works on " +
			"(in its own git worktree for code); you get a [Task Update] when it ends. One call per task.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"assignee":{"type":"string","description":"the member, as @Name"},` +
			`"task":{"type":"string","description":"what to do, with enough context to start"},` +
			`"kind":{"type":"string","enum":["code","research","review"],"description":"code works in a git worktree; default: code when the mission has a repository, else research"},` +
			`"repoPath":{"type":"string","description":"absolute path of the repository, for code"}},` +
			`"required":["assignee","task"]}`),
	}
}

// callDelegate hands one delegate call to the host.
func callDelegate(ctx context.Context, fn executor.DelegateFunc, input json.RawMessage) toolOutcome {
	var d executor.Delegation
	if err := json.Unmarshal(input, &d); err != nil {
		return toolOutcome{out: "invalid arguments: the input must be a JSON object with assignee and task", isErr: true}
	}
	out, err := fn(ctx, d)
	if err != nil {
		return toolOutcome{out: err.Error(), isErr: true}
	}
	return toolOutcome{out: capText(out)}
}
