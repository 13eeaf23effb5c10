package agent

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/sandbox"
)

// The loop runs the action, puts the observation in the scratchpad of the
// next prompt, and ends at the final answer.
func TestRunReact(t *testing.T) {
	m := &scripted{replies: []model.Response{
		{Text: "Load it.\nAction: python_code_sandbox\nAction Input:\n```python\nprint(len(df))\n```\nObservation: made up"},
		{Text: "Final Answer: @rows[42]"},
	}}
	interp := &fakeInterp{results: map[string]sandbox.Result{"print(len(df))": {Output: "42"}}}
	resp, err := RunReact(context.Background(), m, question(), interp, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "@rows[42]" || resp.Work.Turns != 2 {
		t.Errorf("answer %q after %d turns", resp.Text, resp.Work.Turns)
	}
	first := m.reqs[0].Messages[0].Content
	if !strings.Contains(first, "python_code_sandbox[input]: this tool can help to run python script with python code as input\n.\n") ||
		!strings.HasSuffix(first, "Question: How many rows?\nThought:\n\n") {
		t.Errorf("first prompt:\n%s", first)
	}
	second := m.reqs[1].Messages[0].Content
	wantPad := "Thought:\nLoad it.\nAction: python_code_sandbox\nAction Input:\n```python\nprint(len(df))\n```\nObservation:\n" +
		"[SYSTEM NOTIFICATION] Running the above tool with the following response: \n\nSTDOUT:\n```python\n42\n```\n\n\n\nThought:\n\n"
	if !strings.HasSuffix(second, wantPad) {
		t.Errorf("second prompt ends:\n%q\nwant:\n%q", second[len(second)-len(wantPad)-20:], wantPad)
	}
	if stop := m.reqs[0].Settings.Stop; len(stop) != 1 || stop[0] != "Observation:" {
		t.Errorf("stop = %q", stop)
	}
}

// The images of the question's message go with every prompt the loop
// rebuilds as text: a chart the model was sent stays in view at each
// turn. A question without images sends none.
func TestRunReactKeepsImages(t *testing.T) {
	var buf bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{R: 255, A: 255})
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	chart := model.Image{MediaType: "image/png", Data: buf.Bytes()}
	for _, tc := range []struct {
		name   string
		images []model.Image
	}{
		{"with a chart", []model.Image{chart}},
		{"without images", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &scripted{replies: []model.Response{
				{Text: "Look.\nAction: python_code_sandbox\nAction Input:\n```python\nprint(1)\n```\n"},
				{Text: "Final Answer: @bar[red]"},
			}}
			q := question()
			q.Messages[0].Images = tc.images
			if _, err := RunReact(context.Background(), m, q, &fakeInterp{results: map[string]sandbox.Result{"print(1)": {Output: "1"}}}, Options{}); err != nil {
				t.Fatal(err)
			}
			if len(m.reqs) != 2 {
				t.Fatalf("%d calls, want 2", len(m.reqs))
			}
			for i, r := range m.reqs {
				got := r.Messages[0].Images
				if len(got) != len(tc.images) || len(got) == 1 && (got[0].MediaType != "image/png" || !bytes.Equal(got[0].Data, chart.Data)) {
					t.Errorf("call %d: %d images, want %d", i+1, len(got), len(tc.images))
				}
				if err := r.Check(); err != nil {
					t.Errorf("call %d: %v", i+1, err)
				}
			}
		})
	}
}

// A reply that is neither action nor answer is asked again three times,
// then the question ends with InfiAgent's failure text.
func TestRunReactGivesUp(t *testing.T) {
	m := &scripted{replies: []model.Response{{Text: "hmm"}}}
	resp, err := RunReact(context.Background(), m, question(), &fakeInterp{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.reqs) != 4 || !strings.Contains(resp.Text, "Sorry Agent unable to answer") {
		t.Errorf("%d calls, answer %q", len(m.reqs), resp.Text)
	}
}

func TestTrimMiddle(t *testing.T) {
	var lines []string
	for i := 0; i < 300; i++ {
		lines = append(lines, "line of some text")
	}
	s := strings.Join(lines, "\n")
	got := trimMiddle(s)
	if len(got) >= len(s) || !strings.Contains(got, "\n......\n") {
		t.Errorf("not trimmed: %d -> %d", len(s), len(got))
	}
	if short := "short"; trimMiddle(short) != short {
		t.Error("short text changed")
	}
}

// A ReAct step sends a prompt of its own making, so the prefix the
// question's message shared with its sheet's (model.Request.Prefix) is
// not sent on; the tools loop keeps it, its message first as it was.
func TestPromptPrefixKeptWhereItHolds(t *testing.T) {
	shared := model.Prefix{Text: 5, Tokens: 2000}
	for _, tc := range []struct {
		name string
		run  func(context.Context, model.Model, model.Task, Interpreter, Options) (model.Response, error)
		want model.Prefix
	}{
		{"react", RunReact, model.Prefix{}},
		{"tools", Run, shared},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &scripted{replies: []model.Response{{Text: "Final Answer: @rows[42]"}}}
			q := question()
			q.Prefix = shared
			if _, err := tc.run(context.Background(), m, q, &fakeInterp{}, Options{}); err != nil {
				t.Fatal(err)
			}
			if got := m.reqs[0].Prefix; got != tc.want {
				t.Errorf("prefix sent %+v, want %+v", got, tc.want)
			}
		})
	}
}
