package evalmdcmd

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/result"
)

// slurmPrograms are Debian's slurmctld, slurmd, slurm-client and munge.
var slurmPrograms = []string{"slurmctld", "slurmd", "sbatch", "squeue", "scancel", "scontrol", "sinfo", "munged", "mungekey"}

// slurm is a one-node Slurm cluster of the test's own: its config, state
// and logs in dir, its daemons the test's children.
type slurm struct {
	t   *testing.T
	ctx context.Context
	dir string
	env []string // SLURM_CONF, for the client programs
}

// startSlurm starts munged (its own key and socket), slurmctld and slurmd
// with a slurm.conf for this host in dir, and waits for the node to be
// idle. The daemons, and any job left, are stopped when the test ends.
func startSlurm(ctx context.Context, t *testing.T, dir string) *slurm {
	t.Helper()
	var missing []string
	for _, p := range slurmPrograms {
		if _, err := exec.LookPath(p); err != nil {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		shared.Missing(t, fmt.Sprintf("Slurm not installed: %s not found (apt-get install slurmctld slurmd slurm-client munge)", strings.Join(missing, ", ")))
	}
	if os.Geteuid() != 0 {
		shared.Missing(t, "a one-node Slurm needs root here: slurmd starts the jobs")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// munged wants the folders to its socket searchable by every user.
	for d := dir; d != filepath.Dir(d) && strings.HasPrefix(d, os.TempDir()+"/"); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s := &slurm{t: t, ctx: ctx, dir: dir}
	for _, sub := range []string{"state", "spool", "log"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s.run("mungekey", "-c", "-k", filepath.Join(dir, "munge.key"))
	s.daemon("munged", "-F", "--key-file="+filepath.Join(dir, "munge.key"), "--socket="+filepath.Join(dir, "munge.sock"),
		"--pid-file="+filepath.Join(dir, "munged.pid"), "--log-file="+filepath.Join(dir, "log", "munged.log"), "--seed-file="+filepath.Join(dir, "munged.seed"))
	s.waitFor("munged's socket", func() bool { _, err := os.Stat(filepath.Join(dir, "munge.sock")); return err == nil })
	conf := filepath.Join(dir, "slurm.conf")
	if err := os.WriteFile(conf, []byte(s.conf()), 0o644); err != nil {
		t.Fatal(err)
	}
	s.env = []string{"SLURM_CONF=" + conf}
	s.daemon("slurmctld", "-D", "-i")
	s.daemon("slurmd", "-D")
	t.Cleanup(s.cancelJobs) // before the daemons stop: cleanups run last first
	s.waitFor("the node idle", func() bool {
		out, _ := s.try("sinfo", "-h", "-o", "%T")
		return strings.TrimSpace(out) == "idle"
	})
	return s
}

// conf is slurm.conf for this host: its CPUs and memory as slurmd sees
// them, the daemons on free ports of 127.0.0.1, their files in s.dir.
func (s *slurm) conf() string {
	host, err := os.Hostname()
	if err != nil {
		s.t.Fatal(err)
	}
	node := strings.Fields(s.run("slurmd", "-C"))
	if len(node) == 0 || !strings.HasPrefix(node[0], "NodeName=") {
		s.t.Fatalf("slurmd -C: %q", node)
	}
	var b strings.Builder
	d := s.dir
	fmt.Fprintf(&b, "ClusterName=evalmdtest\nSlurmctldHost=%s(127.0.0.1)\nSlurmctldPort=%d\nSlurmdPort=%d\n", host, freePort(s.t), freePort(s.t))
	// cred_expire is also how long a requeued job waits (120 s by default).
	fmt.Fprintf(&b, "AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket=%s/munge.sock,cred_expire=5\n", d)
	fmt.Fprintf(&b, "SlurmUser=root\nSlurmdUser=root\nStateSaveLocation=%s/state\nSlurmdSpoolDir=%s/spool\n", d, d)
	fmt.Fprintf(&b, "SlurmctldPidFile=%s/slurmctld.pid\nSlurmdPidFile=%s/slurmd.pid\nSlurmctldLogFile=%s/log/slurmctld.log\nSlurmdLogFile=%s/log/slurmd.log\n", d, d, d, d)
	b.WriteString("ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n")
	b.WriteString("MpiDefault=none\nSwitchType=switch/none\nJobCompType=jobcomp/none\nAccountingStorageType=accounting_storage/none\nJobAcctGatherType=jobacct_gather/none\n")
	b.WriteString("ReturnToService=2\nJobRequeue=1\nMinJobAge=600\nSchedulerParameters=sched_interval=1\n")
	fmt.Fprintf(&b, "%s NodeAddr=127.0.0.1 State=UNKNOWN\nPartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n", strings.Join(node[:len(node)-1], " "))
	return b.String()
}

// freePort is a TCP port of 127.0.0.1 free a moment ago.
func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// daemon starts name in the foreground as the test's child, its output
// in the log folder; it is killed when the test ends.
func (s *slurm) daemon(name string, args ...string) {
	log, err := os.Create(filepath.Join(s.dir, "log", name+".out"))
	if err != nil {
		s.t.Fatal(err)
	}
	cmd := exec.Command(name, args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = append(os.Environ(), s.env...), log, log
	// Killed with the test process too, should it end without its
	// cleanups (a panic, go test's -timeout).
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		log.Close()
	})
}

// try runs a client program and returns its output. Its bound is its
// own: the cleanups run it after the test's context is done.
func (s *slurm) try(name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), s.env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// run is try, the test failing on an error.
func (s *slurm) run(name string, args ...string) string {
	s.t.Helper()
	out, err := s.try(name, args...)
	if err != nil {
		s.t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out, s.logs())
	}
	return out
}

// waitFor waits, bounded by the test's context, until ok.
func (s *slurm) waitFor(what string, ok func() bool) {
	s.t.Helper()
	for !ok() {
		select {
		case <-s.ctx.Done():
			s.t.Fatalf("gave up waiting for %s\n%s", what, s.logs())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// cancelJobs ends every job still there, so that no task outlives the
// test (slurmstepd is not slurmd's child).
func (s *slurm) cancelJobs() {
	if out, _ := s.try("squeue", "-h", "-o", "%A"); strings.TrimSpace(out) != "" {
		s.try("scancel", "--full", "--user=root")
		for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
			if out, _ := s.try("squeue", "-h", "-o", "%A"); strings.TrimSpace(out) == "" {
				return
			}
		}
		s.t.Errorf("jobs still there after scancel --full:\n%s", s.logs())
	}
}

// logs are the daemons' last log lines.
func (s *slurm) logs() string {
	var b strings.Builder
	for _, name := range []string{"slurmctld.log", "slurmd.log", "munged.log"} {
		data, _ := os.ReadFile(filepath.Join(s.dir, "log", name))
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		fmt.Fprintf(&b, "--- %s:\n%s\n", name, strings.Join(lines[max(0, len(lines)-15):], "\n"))
	}
	return b.String()
}

// state is a job's or an array task's JobState.
func (s *slurm) state(job string) string {
	out, _ := s.try("scontrol", "show", "job", job)
	if m := regexp.MustCompile(`JobState=(\S+)`).FindStringSubmatch(out); m != nil {
		return m[1]
	}
	return ""
}

// sbatchScript is the sbatch script of docs/slurm.md.
func sbatchScript(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "slurm.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(string(data), -1) {
		if strings.HasPrefix(m[1], "#!/bin/bash\n#SBATCH") {
			return m[1]
		}
	}
	t.Fatal("docs/slurm.md has no sbatch script (a ```sh block starting #!/bin/bash and #SBATCH)")
	return ""
}

// slurmSheets writes two sheets of n questions into dir, answer "A<i>".
func slurmSheets(t *testing.T, dir string, n int) {
	t.Helper()
	for _, name := range []string{"input-one.md", filepath.Join("sub", "input-two.md")} {
		var b strings.Builder
		fmt.Fprintf(&b, "# Sheet %s\n#### meta\n- grader: exact\n", filepath.Base(name))
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "## Q%d\n#### question\nask %s Q%d\n#### answer\nA%d\n", i, filepath.Base(name), i, i)
		}
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSlurmArray runs docs/slurm.md's sbatch script on a real one-node
// Slurm as a 4-task array over two sheets of 20 questions against a fake
// model server. Task 3 is killed (scancel --signal=KILL) while the server
// holds its requests, and requeued (scontrol requeue); it resumes its
// journal. Every question reaches the server once, those in flight at the
// kill twice; agg over the folder writes the leaderboard, HTML report and
// Inspect logs that agg writes over one process's run of the same answers.
func TestSlurmArray(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Slurm cluster")
	}
	const questions = 40
	ctx, cancel := context.WithTimeout(context.Background(), 110*time.Second)
	defer cancel()
	dir := t.TempDir()
	cluster := startSlurm(ctx, t, filepath.Join(dir, "slurm"))
	work := filepath.Join(dir, "work")
	sheets, out := filepath.Join(work, "sheets"), filepath.Join(work, "out")
	slurmSheets(t, sheets, questions/2)
	writeBin(t, filepath.Join(dir, "bin"))
	evalmd := filepath.Join(dir, "bin", "evalmd")

	j := &jobServer{asked: map[string]int{}, kill: make(chan struct{}), release: make(chan struct{}), journals: filepath.Join(out, ".evalmd-run-*-shard4of4.journal")}
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 400, Reply: j.reply})
	t.Cleanup(j.letGo) // before the server closes: it waits for its handlers
	env := append(os.Environ(), cluster.env...)
	env = append(env, "PATH="+filepath.Join(dir, "bin")+":"+os.Getenv("PATH"), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		"SHEETS="+sheets, "OUT="+out, "MODELS=openai-api/local/a", "MODE=chat", "LOCAL_BASE_URL="+srv.URL)
	evalmdRun := func(args ...string) {
		cmd := exec.CommandContext(ctx, evalmd, args...)
		cmd.Env, cmd.Dir = env, work
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("evalmd %s: %v\n%s", strings.Join(args, " "), err, b)
		}
	}
	// The items of shard 4 (task 3): its dry run lists them.
	evalmdRun("run", "-y", "-d", sheets, "-m", "openai-api/local/a", "-o", filepath.Join(dir, "dry"), "--shard", "4/4")
	j.victim = dryItems(t, filepath.Join(dir, "dry"))
	if len(j.victim) < 4 {
		t.Fatalf("shard 4 of 4 has %d of %d questions", len(j.victim), questions)
	}

	script := filepath.Join(work, "evalmd.sbatch")
	if err := os.WriteFile(script, []byte(sbatchScript(t)), 0o755); err != nil {
		t.Fatal(err)
	}
	sbatch := exec.CommandContext(ctx, "sbatch", "--parsable", "--cpus-per-task=1", "--mem=300M", script)
	sbatch.Env, sbatch.Dir = env, work
	b, err := sbatch.CombinedOutput()
	if err != nil {
		t.Fatalf("sbatch: %v\n%s", err, b)
	}
	job := strings.TrimSpace(string(b))
	taskLogs := func() string {
		var s strings.Builder
		for k := range 4 {
			data, _ := os.ReadFile(filepath.Join(work, fmt.Sprintf("evalmd-%s_%d.out", job, k)))
			fmt.Fprintf(&s, "--- task %d:\n%s", k, data)
		}
		return s.String() + cluster.logs()
	}

	select {
	case <-j.kill:
	case <-ctx.Done():
		t.Fatalf("task 3 never reached the request to kill it at\n%s", taskLogs())
	}
	cluster.run("scancel", "--signal=KILL", job+"_3")
	// Its requests are let go once it is dead: CANCELLED, no longer
	// COMPLETING (its processes being killed).
	cluster.waitFor("task 3 killed", func() bool { return cluster.state(job+"_3") == "CANCELLED" })
	cluster.run("scontrol", "requeue", job+"_3")
	j.mu.Lock()
	j.killed = true
	j.mu.Unlock()
	j.letGo()
	cluster.waitFor("the array to end", func() bool {
		out, _ := cluster.try("squeue", "-h", "-j", job, "-o", "%T")
		return strings.TrimSpace(out) == ""
	})
	for k := range 4 {
		if st := cluster.state(fmt.Sprintf("%s_%d", job, k)); st != "COMPLETED" {
			t.Fatalf("task %d: %s\n%s", k, st, taskLogs())
		}
	}
	if log := taskLogs(); !strings.Contains(log, "attempt 2") {
		t.Errorf("no task says it is a second attempt:\n%s", log)
	}

	j.mu.Lock()
	j.phase = "one"
	j.mu.Unlock()
	evalmdRun("run", "-d", sheets, "-m", "openai-api/local/a", "-o", filepath.Join(work, "out-one"), "--run-id", "slurm-"+job)
	j.check(t, questions)
	t.Logf("job %s: shard 4 of 4 has %d of %d questions; %d answered before the kill, %d in flight at it, asked again", job, len(j.victim), questions, j.answered, len(j.held))
	for _, o := range []string{out, filepath.Join(work, "out-one")} {
		paths, err := result.Find(o, nil)
		if err != nil {
			t.Fatal(err)
		}
		sameClock(t, paths)
	}
	agg := func(from string) map[string]string {
		dest := filepath.Join(dir, "agg-"+filepath.Base(from))
		evalmdRun("agg", "-i", from, "-o", filepath.Join(dest, "report.md"), "-html", filepath.Join(dest, "report.html"), "--log-dir", filepath.Join(dest, "logs"))
		return readTree(t, dest)
	}
	one, sharded := agg(filepath.Join(work, "out-one")), agg(out)
	if !strings.Contains(one["report.md"], "### Leaderboard") || len(one) != 4 {
		t.Fatalf("agg of one process wrote %d files, want report.md, report.html and 2 logs:\n%s", len(one), one["report.md"])
	}
	// The array's page names each answer's part, where a verdict on it is
	// written; one process's names the one file.
	partName := regexp.MustCompile(`("f":"[^"]*)-shard[0-9]+of[0-9]+(\.json")`)
	if html := sharded["report.html"]; !partName.MatchString(html) {
		t.Errorf("report.html of the array names no shard's part")
	}
	sharded["report.html"] = partName.ReplaceAllString(sharded["report.html"], "$1$2")
	for name, want := range one {
		if got := sharded[name]; got != want {
			t.Errorf("%s of the array differs from one process's (%d and %d bytes)", name, len(got), len(want))
		}
	}
	if len(sharded) != len(one) {
		t.Errorf("agg of the array wrote %d files, of one process %d", len(sharded), len(one))
	}
}

// jobServer answers the array's questions, right or wrong by a hash of
// the prompt, and counts them; the third request of the victim shard and
// every one after are held until the task is killed.
type jobServer struct {
	mu       sync.Mutex
	phase    string // "" the array, "one" the single process
	victim   map[string]bool
	asked    map[string]int
	answered int             // the victim's requests answered before the hold
	held     map[string]bool // the victim's requests in flight at the kill
	killed   bool
	once     sync.Once
	kill     chan struct{}
	let      sync.Once
	release  chan struct{}
	journals string // the victim's journal
}

func (j *jobServer) reply(c fakeserver.Call) fakeserver.Reply {
	text := strings.TrimSpace(c.LastUserText())
	j.mu.Lock()
	hold := false
	if j.phase == "" {
		j.asked[text]++
		if j.victim[text] && !j.killed {
			if hold = j.answered >= 2; hold {
				if j.held == nil {
					j.held = map[string]bool{}
				}
				j.held[text] = true
			} else {
				j.answered++
			}
		}
	}
	answered := j.answered
	j.mu.Unlock()
	if hold {
		// The task dies with these requests in flight, once the
		// answers before them are in its journal.
		for end := time.Now().Add(30 * time.Second); journalRecords(j.journals) < answered && time.Now().Before(end); {
			time.Sleep(10 * time.Millisecond)
		}
		j.once.Do(func() { close(j.kill) })
		select {
		case <-j.release:
		case <-time.After(time.Minute):
		}
	}
	h := fnv.New64a()
	h.Write([]byte(text))
	if h.Sum64()%5 < 3 {
		return fakeserver.Reply{Text: "A" + text[strings.LastIndex(text, "Q")+1:]}
	}
	return fakeserver.Reply{Text: "wrong"}
}

// letGo ends the hold.
func (j *jobServer) letGo() { j.let.Do(func() { close(j.release) }) }

// check says every question was asked once by the array, those held at
// the kill twice.
func (j *jobServer) check(t *testing.T, questions int) {
	t.Helper()
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.asked) != questions || len(j.held) == 0 {
		t.Errorf("the array asked %d questions, want %d; %d held at the kill", len(j.asked), questions, len(j.held))
	}
	for text, n := range j.asked {
		if want := 1 + btoi(j.held[text]); n != want {
			t.Errorf("%q asked %d times, want %d", text, n, want)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// journalRecords counts the records of the journals matching pattern.
func journalRecords(pattern string) int {
	paths, _ := filepath.Glob(pattern)
	n := 0
	for _, p := range paths {
		data, _ := os.ReadFile(p)
		n += bytes.Count(data, []byte(`"key":`))
	}
	return n
}

// dryItems are the prompts of the outputs of a dry run in dir.
func dryItems(t *testing.T, dir string) map[string]bool {
	t.Helper()
	paths, err := result.Find(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	items := map[string]bool{}
	for _, p := range paths {
		f, err := result.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range f.Questions {
			items[strings.TrimSpace(q.Question)] = true
		}
	}
	return items
}

// sameClock sets the times of the output files alike: a run's clock is
// not its answers.
func sameClock(t *testing.T, paths []string) {
	t.Helper()
	for _, p := range paths {
		f, err := result.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		f.Sheet.Created = "2026-03-01T10:00:00.000Z"
		if f.Sheet.Totals != nil {
			f.Sheet.Totals.WallSeconds = 12
		}
		for i := range f.Questions {
			secs := 0.25
			f.Questions[i].EvalTime = &secs
		}
		if err := f.Write(p, outfile.Options{Force: true}); err != nil {
			t.Fatal(err)
		}
	}
}

// readTree is every file below dir by its path there.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		got[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}
