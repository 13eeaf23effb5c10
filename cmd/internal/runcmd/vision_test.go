package runcmd

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/result"
)

// --vision auto (as no flag) decides by the model's name and says a local
// model is sent no image; on sends it, off leaves it out quietly, and any
// other word is a usage error naming the three. A model's own vision
// (--vision MODEL=on|off, the config's vision member, which the flag
// overrides) is obeyed and not said either.
func TestVisionFlag(t *testing.T) {
	dir := t.TempDir()
	var pic bytes.Buffer
	if err := png.Encode(&pic, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "chart.png"), pic.Bytes(), 0o644)
	sheet := filepath.Join(dir, "input-v.md")
	os.WriteFile(sheet, []byte("# V\n## Q\n#### files\nchart.png\n#### question\nwhat is drawn?\n#### answer\na dot\n"), 0o644)
	const said = "warning: ollama/llava: the images of 1 question are not sent (no vision by the model's name; --vision on sends them, if the model takes images)\n"
	for _, tc := range []struct {
		flag   []string
		config string
		sent   bool
		said   bool
		usage  string
	}{
		{[]string{"--vision", "ollama/llava=on,openai/gpt-4o=off"}, "", true, false, ""},
		{[]string{"--vision", "ollama/llava=off"}, "", false, false, ""},
		{nil, "vision:\n  ollama/llava: true\n", true, false, ""},
		{[]string{"--vision", "ollama/llava=off"}, "vision:\n  ollama/llava: true\n", false, false, ""},
		{[]string{"--vision", "off"}, "vision:\n  ollama/llava: true\n", false, false, ""},
		{[]string{"--vision", "ollama/llava=maybe"}, "", false, false, `"ollama/llava=maybe": say MODEL=on or MODEL=off`},
		{nil, "", false, true, ""},
		{[]string{"--vision", "auto"}, "", false, true, ""},
		{[]string{"--vision", "on"}, "", true, false, ""},
		{[]string{"--vision", "off"}, "", false, false, ""},
		{[]string{"--vision", "yes"}, "", false, false, `--vision "yes": say on, off or auto, or MODEL=on,MODEL=off`},
	} {
		os.Remove(filepath.Join(dir, "evalmd.yaml"))
		if tc.config != "" {
			os.WriteFile(filepath.Join(dir, "evalmd.yaml"), []byte(tc.config), 0o644)
		}
		out := t.TempDir()
		var stdout, stderr bytes.Buffer
		look := testLookup()
		look.Dir = dir // the workspace's evalmd.yaml, when the case writes one
		err := cli.Execute(context.Background(), &stdout, &stderr, Command(look, os.Getenv, os.Environ), append([]string{"-y", "-f", sheet, "-m", "ollama/llava", "-o", out, "-u", "0"}, tc.flag...))
		if tc.usage != "" {
			if ue := (*cli.UsageError)(nil); !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.usage) {
				t.Errorf("%q: %v, want the usage error %q", tc.flag, err, tc.usage)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v\n%s", tc.flag, err, stderr.String())
		}
		if got := strings.Contains(stderr.String(), said); got != tc.said {
			t.Errorf("%q: said %v, want %v:\n%s", tc.flag, got, tc.said, stderr.String())
		}
		outs, _ := filepath.Glob(filepath.Join(out, "output-*.json"))
		if len(outs) != 1 {
			t.Fatalf("%q: outputs %v", tc.flag, outs)
		}
		f, err := result.Read(outs[0])
		if err != nil {
			t.Fatal(err)
		}
		q := f.Questions[0]
		if sent := len(q.ImagesSent) == 1; sent != tc.sent || len(q.ImagesNotSent) == 1 == tc.sent {
			t.Errorf("%q: images sent %v, not sent %v", tc.flag, q.ImagesSent, q.ImagesNotSent)
		}
	}
}
