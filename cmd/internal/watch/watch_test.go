package watch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Each kind of change is reported, naming only the files it touched.
func TestNext(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	old := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	write := func(p, text string, mod time.Time) {
		t.Helper()
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name   string
		change func()
		want   []string
	}{
		{"new size", func() { write(a, "longer", old) }, []string{a}},
		{"new time, same size", func() { write(a, "LONGER", old.Add(time.Second)) }, []string{a}},
		{"appeared in the list", func() { write(c, "c", old) }, []string{c}},
		{"removed", func() { os.Remove(b) }, []string{b}},
		{"two at once", func() { write(a, "aa", old); write(c, "cc", old) }, []string{a, c}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			write(a, "a", old)
			write(b, "b", old)
			os.Remove(c)
			w := &Watcher{Interval: 10 * time.Millisecond, List: func() []string {
				m, _ := filepath.Glob(filepath.Join(dir, "*"))
				return m
			}}
			w.Mark()
			tc.change()
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			got, err := w.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("changed %q, want %q", got, tc.want)
			}
		})
	}
}

// Saves in quick succession are one change, reported once they stop: at
// the first poll that finds the file as the last save left it. The saves
// come just before each of five polls, however the machine schedules the
// test. A context that ends stops the wait.
func TestNextDebounces(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sheet.md")
	os.WriteFile(p, nil, 0o644)
	lists := 0 // Mark's, then one a poll
	w := &Watcher{Interval: 10 * time.Millisecond, List: func() []string {
		if lists++; lists >= 2 && lists <= 6 {
			os.WriteFile(p, make([]byte, lists), 0o644)
		}
		return []string{p}
	}}
	w.Mark()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	got, err := w.Next(ctx)
	if err != nil || !slices.Equal(got, []string{p}) {
		t.Fatalf("Next: %q, %v", got, err)
	}
	if polls := lists - 1; polls != 6 {
		t.Errorf("the change was reported at poll %d, want 6: the first after the five saves", polls)
	}
	ctx, cancel = context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	if got, err := w.Next(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a second change reported: %q, %v", got, err)
	}
}
