package openclaw

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/clawboo/desktop/backend/bus"
)

// wsConn is one handshaken socket: requests matched to responses by id,
// events published in arrival order.
type wsConn struct {
	ws     *websocket.Conn
	nextID atomic.Int64

	mu      sync.Mutex
	pending map[string]chan frame
	dead    chan struct{}
	err     error
	once    sync.Once
}

// call sends one request and waits for its response.
func (w *wsConn) call(ctx context.Context, method string, params any) (frame, error) {
	if params == nil {
		params = map[string]any{}
	}
	id := strconv.FormatInt(w.nextID.Add(1), 10)
	ch := make(chan frame, 1)
	w.mu.Lock()
	if w.err != nil {
		w.mu.Unlock()
		return frame{}, ErrDisconnected
	}
	w.pending[id] = ch
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		delete(w.pending, id)
		w.mu.Unlock()
	}()
	b, err := json.Marshal(frame{Type: "req", ID: id, Method: method, Params: params})
	if err != nil {
		return frame{}, err
	}
	if err := w.ws.Write(ctx, websocket.MessageText, b); err != nil {
		if ctx.Err() != nil {
			return frame{}, ctx.Err()
		}
		return frame{}, ErrDisconnected
	}
	select {
	case r := <-ch:
		return r, nil
	case <-w.dead:
		return frame{}, ErrDisconnected
	case <-ctx.Done():
		return frame{}, ctx.Err()
	}
}

// readLoop dispatches frames until the socket fails, and returns why.
func (w *wsConn) readLoop(events *bus.Broker[Event]) error {
	for {
		_, b, err := w.ws.Read(context.Background())
		if err != nil {
			w.fail(err)
			return err
		}
		var f frame
		if json.Unmarshal(b, &f) != nil {
			continue
		}
		switch f.Type {
		case "res":
			w.mu.Lock()
			ch := w.pending[f.ID]
			w.mu.Unlock()
			if ch != nil {
				select {
				case ch <- f:
				default:
				}
			}
		case "event":
			if f.Event == "tick" {
				continue
			}
			events.PublishMust(Event{Name: f.Event, Payload: f.Payload})
		}
	}
}

// keepAlive pings a quiet socket and closes it when the ping fails or the
// client closes.
func (w *wsConn) keepAlive(every time.Duration, closed <-chan struct{}) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-w.dead:
			return
		case <-closed:
			w.close("client closed")
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err := w.ws.Ping(ctx)
			cancel()
			if err != nil {
				w.close("ping failed")
				return
			}
		}
	}
}

func (w *wsConn) fail(err error) {
	w.once.Do(func() {
		w.mu.Lock()
		if err == nil {
			err = errors.New("closed")
		}
		w.err = err
		w.mu.Unlock()
		close(w.dead)
	})
}

func (w *wsConn) close(reason string) {
	_ = w.ws.Close(websocket.StatusNormalClosure, reason)
	w.fail(errors.New(reason))
}
