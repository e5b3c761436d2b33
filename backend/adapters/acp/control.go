package acp

import (
	"context"
	"os"
	"sort"
	"strings"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/clawboo/desktop/backend/executor"
)

// Abort cancels the turn (session/cancel) and stops the process group
// after Grace if it has not ended by then; the run ends in Done{aborted}.
func (r *run) Abort(context.Context) error {
	r.mu.Lock()
	if r.ended || r.aborted {
		r.mu.Unlock()
		return nil
	}
	r.aborted = true
	conn, sess, c := r.conn, r.session, r.child
	r.mu.Unlock()
	r.stopOnce.Do(func() { close(r.stopped) })
	if c == nil {
		return nil
	}
	if conn == nil || sess == "" {
		c.Stop() // still starting: nothing to cancel politely
		return nil
	}
	r.cancelTurn(conn, sess)
	time.AfterFunc(r.a.opts.Grace, c.Stop)
	return nil
}

// cancelTurn sends session/cancel without blocking the caller (an agent
// that does not read its stdin must not hang a person's Stop).
func (r *run) cancelTurn(conn *acpsdk.ClientSideConnection, sess acpsdk.SessionId) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), r.a.opts.Grace)
		defer cancel()
		_ = conn.Cancel(ctx, acpsdk.CancelNotification{SessionId: sess})
	}()
}

// Steer (mode next) cancels the running turn and prompts the same session
// with the text; one that arrives between turns goes in next. A passive
// steer is refused: ACP v1 cannot take it without stopping the turn.
func (r *run) Steer(_ context.Context, s executor.Steer) (executor.SteerResult, error) {
	text := strings.TrimSpace(s.Text)
	if s.Mode == executor.SteerPassive || text == "" {
		return executor.SteerRejected, nil
	}
	r.mu.Lock()
	if r.ended || r.aborted {
		r.mu.Unlock()
		return executor.SteerRunEnded, nil
	}
	if len(r.steers) >= 32 {
		r.mu.Unlock()
		return executor.SteerRejected, nil
	}
	r.steers = append(r.steers, text)
	inTurn, conn, sess := r.inTurn, r.conn, r.session
	r.mu.Unlock()
	if !inTurn || conn == nil {
		return executor.SteerQueued, nil
	}
	r.cancelTurn(conn, sess)
	return executor.SteerDelivered, nil
}

// SetModel asks the session to switch models (session/set_model) when the
// agent offered models for it; otherwise it is unsupported.
func (r *run) SetModel(ctx context.Context, model string) error {
	r.mu.Lock()
	conn, sess, ok := r.conn, r.session, r.models && !r.ended
	r.mu.Unlock()
	if !ok || conn == nil {
		return executor.ErrUnsupported
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err := conn.UnstableSetSessionModel(ctx, acpsdk.UnstableSetSessionModelRequest{SessionId: sess, ModelId: acpsdk.UnstableModelId(model)})
	if err != nil {
		return stepError("session/set_model", err, ctx)
	}
	return nil
}

// end stops the process (its group reaped), then emits the terminal
// events: nothing of the run outlives its Done.
func (r *run) end(reason executor.DoneReason, summary string) {
	r.mu.Lock()
	r.ended = true
	r.mu.Unlock()
	r.close()
	if reason == executor.DoneError {
		_ = r.em.Emit(r.ctx, executor.Error("", summary, true))
	}
	if err := r.em.Emit(r.ctx, executor.Done(reason, summary)); err != nil {
		r.em.Close() // the host stopped reading: end the stream without a Done
	}
}

// close stops every terminal and the agent, waits for the process to be
// reaped (Grace, then SIGKILL), and removes a throwaway folder. Safe to
// call more than once.
func (r *run) close() {
	r.quitOnce.Do(func() { close(r.quit) })
	r.terms.closeAll()
	r.mu.Lock()
	c := r.child
	r.mu.Unlock()
	if c != nil {
		if in := c.Stdin(); in != nil {
			_ = in.Close() // end-of-file: a polite agent exits now
		}
		select {
		case <-c.Done():
		case <-time.After(200 * time.Millisecond):
		}
		c.Stop()
		<-c.Done()
	}
	if r.jail != nil {
		_ = r.jail.Close()
	}
	if r.tmp != "" {
		_ = os.RemoveAll(r.tmp)
	}
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
