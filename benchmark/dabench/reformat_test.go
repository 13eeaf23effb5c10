package dabench

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/agent"
	"github.com/evalmd/evalmd/benchmark"
	"github.com/evalmd/evalmd/benchmark/dabench/score"
	"github.com/evalmd/evalmd/harness"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/providers"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/runner"
	"github.com/evalmd/evalmd/sandbox"
)

// TestReformat runs -faithful sheets (InfiAgent's prompt, its ReAct agent,
// reformat: required) against two fake OpenAI servers: the agent answers in
// prose, and the reformat model, named as InfiAgent's, must receive
// reformat.py's three messages (the question's own text, the agent's
// answer, the format request with the question's format) at temperature 0
// and max_tokens 2048; its @name[value] rewrite is the answer graded, the
// agent's prose stays the completion. Without --reformat the run is
// refused before any call.
func TestReformat(t *testing.T) {
	if _, err := sandbox.Check(context.Background(), sandbox.Config{Warm: -1}); err != nil {
		shared.Missing(t, err.Error())
	}
	src := shared.Path(t, "corpora", "dabench")
	all, errs := Load(src)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var qs []Question
	for _, q := range all {
		if q.FileName == all[0].FileName && len(qs) < 2 {
			qs = append(qs, q)
		}
	}
	sheets := t.TempDir()
	if _, errs := Convert(Options{Data: subsetData(t, src, qs), Out: sheets, Faithful: true}); len(errs) > 0 {
		t.Fatal(errs)
	}
	found, err := harness.FindSheets(sheets)
	if err != nil || len(found) != 1 {
		t.Fatalf("sheets %v, %v", found, err)
	}
	byQuestion := map[string]*Question{} // the question's own text -> it
	for i := range qs {
		byQuestion[qs[i].Question] = &qs[i]
	}
	// The agent's answer in prose, without the @name[value] form: graded
	// as it is, it would be wrong.
	prose := func(q *Question) string {
		return "I computed it: " + strings.NewReplacer("@", "", "[", " is ", "]", "").Replace(score.LabelsText(q.Labels))
	}

	agentSrv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 10, Reply: func(c fakeserver.Call) fakeserver.Reply {
		for _, q := range qs {
			if strings.Contains(c.LastUserText(), "Question: "+q.Question+"\n") {
				return fakeserver.Reply{Text: "Final Answer: " + prose(&q)}
			}
		}
		return fakeserver.Reply{Text: "Final Answer: unknown question"}
	}})
	var bad []string
	reformatSrv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 10, Reply: func(c fakeserver.Call) fakeserver.Reply {
		if len(c.Messages) != 3 {
			bad = append(bad, "want 3 messages")
			return fakeserver.Reply{Text: "?"}
		}
		q := byQuestion[c.Messages[0].Text]
		if q == nil {
			bad = append(bad, "first message is not a question's own text: "+c.Messages[0].Text)
			return fakeserver.Reply{Text: "?"}
		}
		want := agent.ReformatRequest(model.Reformat{Question: q.Question, Format: q.Format}, strings.TrimSpace(prose(q)))
		for i, m := range want.Messages {
			if c.Messages[i].Role != m.Role || c.Messages[i].Text != m.Content {
				bad = append(bad, "message "+m.Role+": "+c.Messages[i].Text)
			}
		}
		ask := c.Messages[2].Text
		if !strings.HasPrefix(ask, "You should strictly follow the output requirements in the Format part. Here're some examples: \n\\Format{{\n") ||
			!strings.HasSuffix(ask, "The format requirements of this question is:\n"+q.Format+". Please give your answer:") {
			bad = append(bad, "format request: "+ask)
		}
		if c.Model != agent.ReformatModel || c.Settings.Temperature == nil || *c.Settings.Temperature != 0 ||
			c.Settings.MaxTokens == nil || *c.Settings.MaxTokens != 2048 {
			bad = append(bad, "model or settings: "+c.Model)
		}
		return fakeserver.Reply{Text: score.LabelsText(q.Labels)}
	}})
	set, err := benchmark.NewSet(score.Benchmark())
	if err != nil {
		t.Fatal(err)
	}
	cfg := harness.Config{NewModel: providers.New, Sheets: found, Models: []string{"openai-api/local/agent"}, Graders: set.Graders, DataRoots: []string{src},
		Model:   model.Options{BaseURL: agentSrv.URL, Getenv: func(string) string { return "" }},
		Runner:  runner.Options{Concurrency: 1},
		Sandbox: sandbox.Config{MaxInFlight: 1}, Stderr: io.Discard}

	// Refused without a reformat model, before any call, in one line.
	cfg.OutDir = t.TempDir()
	_, err = harness.Run(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "reformat: required") || !strings.Contains(err.Error(), "--reformat MODEL") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("without --reformat: %v", err)
	}
	if agentSrv.Count()+reformatSrv.Count() != 0 {
		t.Fatalf("%d calls before the refusal", agentSrv.Count()+reformatSrv.Count())
	}

	cfg.OutDir = t.TempDir()
	cfg.Reformat = "openai-api/infiagent/" + agent.ReformatModel
	cfg.ReformatOptions = model.Options{BaseURL: reformatSrv.URL, Getenv: func(string) string { return "" }}
	if _, err := harness.Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	for _, b := range bad {
		t.Errorf("reformat request: %s", b)
	}
	if reformatSrv.Count() != len(qs) {
		t.Errorf("%d reformat calls, want %d", reformatSrv.Count(), len(qs))
	}
	outputs, _ := filepath.Glob(filepath.Join(cfg.OutDir, "output-*.json"))
	if len(outputs) != 1 {
		t.Fatalf("outputs %v", outputs)
	}
	f, err := result.Read(outputs[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, rq := range f.Questions {
		var q *Question
		for i := range qs {
			if questionName(qs[i].ID) == rq.Name {
				q = &qs[i]
			}
		}
		if q == nil || rq.Completion == nil || rq.Answer == nil {
			t.Fatalf("%s: completion %v answer %v", rq.Name, rq.Completion, rq.Answer)
		}
		if *rq.Completion != strings.TrimSpace(prose(q)) || *rq.Answer != score.LabelsText(q.Labels) || rq.ReformatModel != cfg.Reformat {
			t.Errorf("%s: completion %q answer %q reformat model %q", rq.Name, *rq.Completion, *rq.Answer, rq.ReformatModel)
		}
		if rq.Grade == nil || !*rq.Grade {
			t.Errorf("%s: graded %v (%s), want right on the reformatted answer", rq.Name, rq.Grade, rq.GradeDetail)
		}
	}
}
