package store

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"reflect"
)

// A package that owns its own tables (budget's spend rows) may write them
// inside a run-ledger batch, so a run's last rows commit with its result
// instead of in a transaction of their own: a commit costs several times
// any of its rows. Exec and QueryRow run any SQL on the batch's connection
// through statements prepared once per connection, like the ledger's own.

// stmt returns the prepared statement for query on the batch's connection.
// The ledger mutex is held for the whole batch, so the map needs no lock.
func (b *Batch) stmt(query string) (driver.Stmt, error) {
	if st := b.l.extra[query]; st != nil {
		return st, nil
	}
	pc, ok := b.l.conn.(driver.ConnPrepareContext)
	if !ok {
		return nil, errors.New("sqlite driver cannot prepare statements")
	}
	st, err := pc.PrepareContext(b.ctx, query)
	if err != nil {
		return nil, err
	}
	if b.l.extra == nil {
		b.l.extra = map[string]driver.Stmt{}
	}
	b.l.extra[query] = st
	return st, nil
}

func namedValues(args []any) []driver.NamedValue {
	nv := make([]driver.NamedValue, len(args))
	for i, a := range args {
		nv[i] = driver.NamedValue{Ordinal: i + 1, Value: value(a)}
	}
	return nv
}

// Exec runs a statement inside the batch and reports the rows it changed.
// Arguments are strings, int64s, float64s, nil, or pointers to those.
func (b *Batch) Exec(query string, args ...any) (int64, error) {
	st, err := b.stmt(query)
	if err != nil {
		return 0, err
	}
	res, err := st.(driver.StmtExecContext).ExecContext(b.ctx, namedValues(args))
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, nil
	}
	return n, nil
}

// Row is the first row of a Batch.QueryRow.
type Row struct {
	vals []driver.Value
	err  error
}

// QueryRow runs a query inside the batch and keeps its first row.
func (b *Batch) QueryRow(query string, args ...any) *Row {
	st, err := b.stmt(query)
	if err != nil {
		return &Row{err: err}
	}
	rows, err := st.(driver.StmtQueryContext).QueryContext(b.ctx, namedValues(args))
	if err != nil {
		return &Row{err: err}
	}
	defer rows.Close()
	vals := make([]driver.Value, len(rows.Columns()))
	if err := rows.Next(vals); err != nil {
		if errors.Is(err, io.EOF) {
			return &Row{err: sql.ErrNoRows}
		}
		return &Row{err: err}
	}
	return &Row{vals: vals}
}

// Scan copies the row into dest, which are pointers to string or integer
// kinds (named types included) or float64; a NULL leaves the zero value.
// It returns sql.ErrNoRows when the query found nothing, as sql.Row does.
func (r *Row) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	if len(dest) != len(r.vals) {
		return fmt.Errorf("scan: %d destinations for %d columns", len(dest), len(r.vals))
	}
	for i, d := range dest {
		v := reflect.ValueOf(d)
		if v.Kind() != reflect.Pointer || v.IsNil() {
			return fmt.Errorf("scan: destination %d is not a pointer", i)
		}
		e := v.Elem()
		switch src := r.vals[i].(type) {
		case nil:
			e.SetZero()
		case int64:
			switch e.Kind() {
			case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
				e.SetInt(src)
			case reflect.Float64:
				e.SetFloat(float64(src))
			default:
				return fmt.Errorf("scan: column %d: integer into %s", i, e.Type())
			}
		case float64:
			if e.Kind() != reflect.Float64 {
				return fmt.Errorf("scan: column %d: float into %s", i, e.Type())
			}
			e.SetFloat(src)
		case string:
			if e.Kind() != reflect.String {
				return fmt.Errorf("scan: column %d: text into %s", i, e.Type())
			}
			e.SetString(src)
		case []byte:
			if e.Kind() != reflect.String {
				return fmt.Errorf("scan: column %d: blob into %s", i, e.Type())
			}
			e.SetString(string(src))
		default:
			return fmt.Errorf("scan: column %d: unsupported %T", i, src)
		}
	}
	return nil
}
