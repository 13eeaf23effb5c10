package harness

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/model/providers"
	"github.com/evalmd/evalmd/result"
)

// writePNG writes a real 2x2 PNG image to path.
func writePNG(t *testing.T, path string) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 1, color.RGBA{B: 255, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestImagesSaidAndRecorded dry-runs a sheet of two questions with an
// image and one without on models with and without vision: each output
// question records the images sent or not, its .md says so, and a model
// left without them is said once per run on stderr with the number of
// questions and the flag that sends them; --vision off and on are obeyed
// and say nothing, nor does an offline model (oracle), which no image
// could inform.
func TestImagesSaidAndRecorded(t *testing.T) {
	on, off := true, false
	const gpt4o, llava, gpt35 = "openai/gpt-4o", "ollama/llava", "openai/gpt-3.5-turbo"
	for _, tc := range []struct {
		name   string
		vision *bool
		sent   []string // models sent the image
		said   []string // models said to be sent none
	}{
		{"by name", nil, []string{gpt4o}, []string{llava + ": the images of 2 questions are not sent", gpt35 + ": the images of 2 questions are not sent"}},
		{"--vision off", &off, nil, nil},
		{"--vision on", &on, []string{gpt4o, llava, gpt35, "oracle"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writePNG(t, filepath.Join(dir, "chart.png"))
			text := "# S\n#### files\nchart.png\n## A\n#### question\na?\n#### answer\nx\n## B\n#### question\nb?\n#### answer\ny\n"
			if err := os.WriteFile(filepath.Join(dir, "input-s.md"), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			plain := "# P\n## C\n#### question\nc?\n#### answer\nz\n"
			if err := os.WriteFile(filepath.Join(dir, "input-p.md"), []byte(plain), 0o644); err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			sum, err := Run(context.Background(), Config{Sheets: []string{filepath.Join(dir, "input-s.md"), filepath.Join(dir, "input-p.md")},
				Models: []string{gpt4o, llava, gpt35, "oracle"}, DryRun: true, Vision: tc.vision, Describe: providers.Registry().Describe,
				OutDir: filepath.Join(dir, "out"), Stderr: &stderr})
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			if n := strings.Count(stderr.String(), "are not sent"); n != len(tc.said) {
				t.Errorf("%d lines about images not sent, want %d:\n%s", n, len(tc.said), stderr.String())
			}
			for _, s := range tc.said {
				if !strings.Contains(stderr.String(), "warning: "+s+" (no vision by the model's name; --vision on sends them, if the model takes images)\n") {
					t.Errorf("stderr lacks %q:\n%s", s, stderr.String())
				}
			}
			checkImageRecords(t, sum.Outputs, tc.sent)
		})
	}
}

// checkImageRecords checks each output's questions: those of sheet S
// sent chart.png when their model is among sent and recorded it as not
// sent otherwise, in the JSON and the .md; sheet P's question has neither.
func checkImageRecords(t *testing.T, outputs []string, sent []string) {
	t.Helper()
	if len(outputs) != 8 {
		t.Fatalf("%d outputs, want 8", len(outputs))
	}
	for _, path := range outputs {
		f, err := result.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		md, err := os.ReadFile(strings.TrimSuffix(path, ".json") + ".md")
		if err != nil {
			t.Fatal(err)
		}
		want, line := []string{"chart.png"}, "**Images sent:** chart.png\n"
		for _, q := range f.Questions {
			got := q.ImagesSent
			switch {
			case f.Sheet.Name == "P":
				want, line = nil, "Images"
				got = append(q.ImagesSent, q.ImagesNotSent...)
			case !slices.Contains(sent, f.Sheet.ModelName):
				got, line = q.ImagesNotSent, "**Images not sent** (the model takes no images; run --vision on if it does): chart.png\n"
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: %s: images %v, not sent %v; want %v", filepath.Base(path), q.Name, q.ImagesSent, q.ImagesNotSent, want)
			}
		}
		if has, n := strings.Contains(string(md), line), strings.Count(string(md), line); want == nil && has || want != nil && n != 2 {
			t.Errorf("%s: %q %d times in\n%s", filepath.Base(path), line, n, md)
		}
	}
}

// writeSizedPNG writes a real w x h PNG image to path.
func writeSizedPNG(t *testing.T, path string, w, h int) {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDryRunCountsImages: the dry run's estimate counts each image sent
// by its provider's rule, a 1024x600 PNG on two questions: OpenAI's 85 +
// 170 per 512-pixel tile (2x2 tiles, its short side under 768: 765),
// Anthropic's width*height/750 (820); with --vision off neither is sent
// nor counted, and the .md says the image was not sent.
func TestDryRunCountsImages(t *testing.T) {
	dir := t.TempDir()
	writeSizedPNG(t, filepath.Join(dir, "chart.png"), 1024, 600)
	text := "# S\n#### files\nchart.png\n## A\n#### question\na?\n#### answer\nx\n## B\n#### question\nb?\n#### answer\ny\n"
	if err := os.WriteFile(filepath.Join(dir, "input-s.md"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	const gpt, claude = "openai/gpt-4o", "anthropic/claude-sonnet-4-5"
	estimate := func(vision *bool) map[string]int {
		var stderr bytes.Buffer
		sum, err := Run(context.Background(), Config{Sheets: []string{filepath.Join(dir, "input-s.md")}, Models: []string{gpt, claude},
			DryRun: true, Force: true, Vision: vision, Describe: providers.Registry().Describe, OutDir: filepath.Join(dir, "out"), Stderr: &stderr})
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
		if vision != nil {
			checkImageRecords1(t, sum.Outputs)
		}
		got := map[string]int{}
		for _, line := range strings.Split(stderr.String(), "\n") {
			for _, m := range []string{gpt, claude} {
				var n int
				if _, err := fmt.Sscanf(line, m+": about %d input tokens", &n); err == nil {
					got[m] = n
				}
			}
		}
		return got
	}
	off := false
	with, without := estimate(nil), estimate(&off)
	for m, want := range map[string]int{gpt: 2 * 765, claude: 2 * 820} {
		if d := with[m] - without[m]; d != want {
			t.Errorf("%s: %d input tokens with the image, %d without: %d for the images, want %d", m, with[m], without[m], d, want)
		}
	}
}

// checkImageRecords1 checks that no output's question sent its image and
// that each .md says it was not sent.
func checkImageRecords1(t *testing.T, outputs []string) {
	t.Helper()
	for _, path := range outputs {
		md, err := os.ReadFile(strings.TrimSuffix(path, ".json") + ".md")
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(md), "**Images not sent**"); n != 2 {
			t.Errorf("%s: %d questions say their image was not sent, want 2", filepath.Base(path), n)
		}
	}
}
