package sandbox

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fakeDocker puts testdata/fake-docker on PATH as `docker` and returns the
// folder where it logs its calls.
func fakeDocker(t *testing.T) string {
	t.Helper()
	needSandbox(t) // the fake emulates containers with bubblewrap
	bin := t.TempDir()
	src, err := os.ReadFile("testdata/fake-docker")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "docker"), src, 0o755); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("FAKE_DOCKER_DIR", state)
	t.Setenv("FAKE_DOCKER_IMAGE", "evalmd-test-image")
	return state
}

// dockerCalls reads the fake's log: one argument list per call.
func dockerCalls(t *testing.T, state string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(state, "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var calls [][]string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var args []string
		if err := json.Unmarshal(sc.Bytes(), &args); err != nil {
			t.Fatal(err)
		}
		calls = append(calls, args)
	}
	return calls
}

func TestDockerBackend(t *testing.T) {
	state := fakeDocker(t)
	ctx := context.Background()
	p, err := NewPool(ctx, Config{Backend: Docker, Image: "evalmd-test-image", MaxOutput: 64 << 10, Warm: -1, Environ: []string{"OPENBLAS_NUM_THREADS=2"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if v := p.Versions(); v.Sandbox != "docker evalmd-test-image" || v.Pandas == "" {
		t.Fatalf("versions %+v", v)
	}
	f := writeFile(t, t.TempDir(), "d.csv", "v\n3\n")
	s, err := p.Open(ctx, []string{f})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if r := mustExec(t, s, "import pandas as pd\ndf = pd.read_csv('d.csv')"); r.Output != "" || r.Restarted {
		t.Fatalf("got %+v", r)
	}
	if r := mustExec(t, s, "import os\nprint(df.v[0], os.getcwd(), os.getuid(), os.environ['OPENBLAS_NUM_THREADS'])"); r.Output != "3 /work 1000 2\n" {
		t.Fatalf("got %q", r.Output)
	}
	// A limit (output: it does not depend on the machine's speed) stops
	// the container.
	if r := mustExec(t, s, "while True: print('x' * 1000)"); r.Limit != LimitOutput || !r.Restarted {
		t.Fatalf("got %+v", r)
	}

	// The check's container and its kill, the session's and its kill
	// after the limit.
	var runs, kills [][]string
	for _, c := range dockerCalls(t, state) {
		switch c[0] {
		case "run":
			runs = append(runs, c)
		case "kill":
			kills = append(kills, c)
		}
	}
	if len(runs) != 2 || len(kills) != 2 {
		t.Fatalf("docker runs %d and kills %d, want 2 and 2", len(runs), len(kills))
	}
	run := runs[1]
	name := run[5]
	var stage string
	for i, a := range run {
		if a == "-v" {
			stage = strings.TrimSuffix(run[i+1], ":/input:ro")
		}
	}
	want := []string{
		"run", "--rm", "-i", "--init", "--name", name,
		"--network", "none", "--read-only",
		"--cap-drop", "ALL", "--security-opt", "no-new-privileges",
		"--user", "1000:1000",
		"--memory", "2147483648", "--memory-swap", "2147483648",
		"--pids-limit", "128",
		"--tmpfs", "/tmp:rw,exec,size=268435456,mode=1777",
		"--tmpfs", "/work:rw,exec,size=536870912,mode=1777",
		"--shm-size", "268435456",
		"-v", stage + ":/input:ro",
		"-w", "/work",
		"-e", "PATH=/usr/local/bin:/usr/bin:/bin", "-e", "LANG=C.UTF-8", "-e", "USER=sandbox",
		"-e", "LOGNAME=sandbox", "-e", "MPLBACKEND=Agg", "-e", "MALLOC_ARENA_MAX=1", "-e", "HOME=/work", "-e", "TMPDIR=/tmp",
		"-e", "OPENBLAS_NUM_THREADS=2",
		"evalmd-test-image", "/usr/bin/python3", "-I", "-B", "-u", "-c",
	}
	if len(run) < len(want) || !reflect.DeepEqual(run[:len(want)], want) || !strings.HasPrefix(name, "evalmd-sandbox-") || !strings.HasPrefix(stage, p.dir) {
		t.Fatalf("docker run arguments:\ngot  %q\nwant %q", run, want)
	}
	if kill := kills[1]; !reflect.DeepEqual(kill, []string{"kill", name}) {
		t.Fatalf("after the limit: docker %q, want kill %s", kill, name)
	}
	// The session goes on in a new container.
	if r := mustExec(t, s, "'df' in dir()"); r.Output != "False\n" {
		t.Fatalf("got %q", r.Output)
	}
}

func TestDockerErrors(t *testing.T) {
	fakeDocker(t)
	_, err := Check(context.Background(), Config{Backend: Docker, Image: "no-such-image"})
	want := "sandbox: docker could not start the interpreter: Unable to find image 'no-such-image:latest' locally; docker: Error response from daemon: pull access denied for no-such-image. (build the image with: docker build -t evalmd-sandbox sandbox/)"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
	t.Setenv("PATH", t.TempDir())
	_, err = Check(context.Background(), Config{Backend: Docker})
	if want := "sandbox: docker backend: no docker on PATH"; err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}
