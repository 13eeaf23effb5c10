// Package config reads evalmd's configuration files: a workspace's
// evalmd.yaml (the nearest at or above the sheets' folder, else at or above
// the current folder) over the user's
// $XDG_CONFIG_HOME/evalmd/config.yaml ($HOME/.config/evalmd/config.yaml
// when XDG_CONFIG_HOME is unset). They hold defaults a team shares for its
// runs: models, servers' base URLs, the judge, prices, concurrency, and
// the settings' defaults.
//
// A value from a file is a default: the commands' flags, then a question's
// meta, then its sheet's meta all come first; only the built-in defaults
// come after. The files never hold API keys: a key-like member (api_key,
// token, secret, password...) or a value that looks like a key is an error
// naming the file and line, and keys stay in the environment. A workspace
// file may have come with a stranger's sheets (a cloned repository): it
// cannot vouch for folders (data_roots), raise ceilings, choose the
// sandbox or send a key to a server it names; those are the user's own
// file's, and what it sets is bounded as a sheet's meta is (package
// setting: From, Ceiling).
//
// The lookup (the folder to start from, the environment) is given by the
// caller, so tests never read the real home folder.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/readfile"
	"github.com/evalmd/evalmd/internal/setting"
	"github.com/evalmd/evalmd/model"
)

// WorkspaceName is the workspace file's name.
const WorkspaceName = "evalmd.yaml"

// Lookup says where the files are looked for.
type Lookup struct {
	// Dir is where the search for evalmd.yaml starts (it goes up to the
	// root) when Sheets finds none: the current folder; "" looks for none,
	// from Sheets either.
	Dir string
	// Sheets is the folder of the sheets a command runs (run -f's folder,
	// run -d): the nearest evalmd.yaml at or above it is the workspace's,
	// so that "run -d evals" from anywhere uses evals/evalmd.yaml.
	Sheets string
	// Getenv reads XDG_CONFIG_HOME and HOME for the user's file; nil
	// looks for none.
	Getenv func(string) string
	// Results are the results a command reads (grade's -o: files or
	// folders), which may have come from a stranger with an evalmd.yaml
	// of theirs: a workspace file in or above one of their folders gives
	// no judge and no base_urls (Config.Ignored says so), as grade would
	// send the results' answers to that judge, on the user's key.
	Results []string
}

// System is the lookup of a command: the current folder and the process's
// environment.
func System() Lookup {
	dir, err := os.Getwd()
	if err != nil {
		dir = ""
	}
	return Lookup{Dir: dir, Getenv: os.Getenv}
}

// ForSheets is l with Sheets set to path's folder (path itself when it is
// one): path is the sheet or the folder of sheets a command runs, or the
// output file or folder grade regrades.
func (l Lookup) ForSheets(path string) Lookup {
	if path == "" {
		return l
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		l.Sheets = path
	} else {
		l.Sheets = filepath.Dir(path)
	}
	return l
}

// ForResults is l looking from the results a command reads (grade's -o):
// ForSheets of the first, and Results all of them.
func (l Lookup) ForResults(paths ...string) Lookup {
	if len(paths) == 0 {
		return l
	}
	l = l.ForSheets(paths[0])
	l.Results = paths
	return l
}

// besideResults says whether the folder dir is at or above one of the
// results' folders (links resolved where they can be).
func (l Lookup) besideResults(dir string) bool {
	for _, p := range l.Results {
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			p = filepath.Dir(p)
		}
		if readfile.Within(resolved(p), resolved(dir)) {
			return true
		}
	}
	return false
}

// resolved is path absolute with its links resolved, or as filepath.Abs
// gives it when they cannot be.
func resolved(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		path = r
	}
	if a, err := filepath.Abs(path); err == nil {
		return a
	}
	return path
}

// Config is what the files say, merged: the workspace's members over the
// user's (maps member by member).
type Config struct {
	// Models are the models run when no -m is given.
	Models []string `yaml:"models"`
	// BaseURLs are servers by provider or by openai-api NAME (openai,
	// anthropic, ollama, vllm, llamacpp, NAME): the base URL a model of
	// that provider is sent to when neither --base-url nor the
	// environment's NAME_BASE_URL says another.
	BaseURLs map[string]string `yaml:"base_urls"`
	// Judge is the judge grader's model when no --judge is given.
	Judge string `yaml:"judge"`
	// Prices are per model name, "IN,OUT[,CACHED_IN[,CACHE_WRITE]]" in US
	// dollars per million tokens (as --price, which wins), over the
	// built-in price table.
	Prices map[string]string `yaml:"prices"`
	// Concurrency is the requests in flight per model when no -c is
	// given, as -c takes it: a number, or auto (ParseConcurrency).
	Concurrency string `yaml:"concurrency"`
	// Ceilings are the most a sheet or a workspace file may set settings
	// to, by setting name, as run --ceiling's (which wins). Only the
	// user's own file may give them.
	Ceilings map[string]string `yaml:"ceilings"`
	// DataRoots are folders whose files sheets may send, as run
	// --data-root's (a relative one from the file's folder). Only the
	// user's own file may name them: a workspace file travels with sheets.
	DataRoots []string `yaml:"data_roots"`
	// Vision says, by model name, whether the model is sent images, over
	// what its name says (run --vision, which wins): a local vision model
	// (ollama/llava: true), or one a server takes none for (false).
	Vision map[string]bool `yaml:"vision"`
	// MaxCost is run --max-cost when it is not given: the most a run may
	// spend, in US dollars. Only the user's own file may give it: a
	// workspace file travels with sheets, and the cap is yours.
	MaxCost *float64 `yaml:"max_cost"`
	// LatestVersion is agg's --latest-version when it is not given: count
	// only the runs of each sheet's newest version (evalmd init's folder
	// turns it on); nil when no file says.
	LatestVersion *bool `yaml:"latest_version"`
	// Others are the members not above: a setting's (package setting
	// declares which: temperature, max_tokens, mode, tool_timeout...),
	// else an unknown member, an error.
	Others map[string]yaml.Node `yaml:",inline"`

	// Files are the files read, the one that wins first.
	Files []string `yaml:"-"`
	// Ignored says, in one line, what a workspace file beside the
	// results gave that was not taken (Lookup.Results); "" when nothing
	// was left out.
	Ignored string `yaml:"-"`
	// prices parsed, and where each member came from (for messages).
	prices map[string]model.Price
	from   map[string]string
	// baseURLLines are the lines of base_urls' members; userOnly the
	// lines of the members only the user's own file may give (for
	// messages).
	baseURLLines map[string]int
	userOnly     map[string]int
	lines        map[string]int // of the judge, base_urls and models members
	modelLines   []int          // of each of Models
	// lent are where the base_urls members a workspace file gave, and
	// the user's did not override, were given ("FILE:LINE"); user is the
	// user's own file (for messages).
	lent map[string]string
	user string
	// workspace says the file is a workspace's (Parse's result only).
	workspace bool
	// settings are each file's settings, the user's first.
	settings []setting.Layer
}

// Load finds and reads the files. No file is no error: the Config is
// empty.
func Load(l Lookup) (*Config, error) {
	c := &Config{from: map[string]string{}, user: userFile(l.Getenv)}
	var files []string
	if c.user != "" {
		files = append(files, c.user)
	}
	if p, err := l.workspace(); err != nil {
		return nil, err
	} else if p != "" && (len(files) == 0 || !sameFile(p, files[0])) {
		files = append(files, p)
	}
	for _, p := range files { // the user's first, the workspace's over it
		data, err := readfile.Read(p, 1<<20)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
		f, err := Parse(p, data)
		if err != nil {
			return nil, err
		}
		if p != c.user {
			f.workspace = true
			if l.besideResults(filepath.Dir(p)) {
				c.Ignored = f.dropSends(p, c.user)
			}
			if err := f.keysStayHome(p, c.user, l.Getenv); err != nil {
				return nil, err
			}
			if err := f.notTheUsers(p); err != nil {
				return nil, err
			}
			if err := f.replaysBelow(p); err != nil {
				return nil, err
			}
		} else {
			for i := range f.settings {
				f.settings[i].Source = setting.UserConfig
			}
		}
		c.merge(f, p)
		c.Files = append([]string{p}, c.Files...)
	}
	return c, nil
}

// keysStayHome refuses a base URL that the workspace file path names for a
// provider whose key the environment holds (and whose NAME_BASE_URL it
// does not set, which would win): the workspace file is found from the
// sheets, so it may have come with a stranger's sheets, and would send
// the key to the stranger's server. The user's own file may name any.
func (c *Config) keysStayHome(path, user string, getenv func(string) string) error {
	if getenv == nil {
		return nil
	}
	names := make([]string, 0, len(c.BaseURLs))
	for k := range c.BaseURLs {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		keyVar, urlVar := model.EnvName(k)+"_API_KEY", model.EnvName(k)+"_BASE_URL"
		if getenv(keyVar) == "" || getenv(urlVar) != "" {
			continue
		}
		return keyAway(fmt.Sprintf("%s:%d", path, c.baseURLLines[k]), k, keyVar, user)
	}
	return nil
}

// dropSends removes the judge and base_urls of c, the workspace file
// path found beside the results, and says so in one line ("" when it
// gives neither).
func (c *Config) dropSends(path, user string) string {
	var left []string
	if c.Judge != "" {
		left = append(left, "judge")
	}
	if len(c.BaseURLs) > 0 {
		left = append(left, "base_urls")
	}
	if len(left) == 0 {
		return ""
	}
	c.Judge, c.BaseURLs = "", nil
	mine := "your own config file"
	if user != "" {
		mine = user
	}
	what := fmt.Sprintf("%s:%d: %s: not taken", path, c.lines[left[0]], left[0])
	if len(left) == 2 {
		what += fmt.Sprintf(", nor base_urls (line %d)", c.lines["base_urls"])
	}
	return fmt.Sprintf("config %s: this evalmd.yaml is in or above the results graded, which may have come from a stranger; name the judge and its server with --judge and --judge-base-url, or in %s", what, mine)
}

// SendKey says whether a key read from keyFrom (a variable's name) may go
// to the server the base_urls member name gives (model.Options.SendKey):
// not when a workspace file gave it, as that file may have come with a
// stranger's sheets; the user's own file may name any.
func (c *Config) SendKey(name, keyFrom string) error {
	if at, ok := c.lent[name]; ok {
		return keyAway(at, name, keyFrom, c.user)
	}
	return nil
}

// ErrKeyAway is what the errors refusing to send a key to a server a
// workspace file names are (errors.Is): a refusal, never a warning.
var ErrKeyAway = errors.New("a key goes only to a server you name")

// keyAwayError is such an error, with its own message.
type keyAwayError struct{ msg string }

func (e *keyAwayError) Error() string        { return e.msg }
func (e *keyAwayError) Is(target error) bool { return target == ErrKeyAway }

// keyAway is the error refusing to send the key in keyVar to the server
// the base_urls member name, at at ("FILE:LINE") in a workspace file,
// gives; user is the user's own file.
func keyAway(at, name, keyVar, user string) error {
	mine := "your own config file"
	if user != "" {
		mine = user
	}
	return &keyAwayError{fmt.Sprintf("config %s: base_urls: %s: a workspace evalmd.yaml (it may have come with sheets) cannot send %s to a server it names; name the server in %s, in %s or with --base-url",
		at, name, keyVar, mine, model.EnvName(name)+"_BASE_URL")}
}

// notTheUsers refuses, in the workspace file path, the members only the
// user's own file may give: data_roots, which vouches for folders outside
// the sheets', and ceilings, which lets sheets ask more.
func (c *Config) notTheUsers(path string) error {
	why := map[string]string{
		"data_roots": "cannot vouch for folders outside them; name them in your own config file or with --data-root",
		"ceilings":   "cannot raise what a sheet may ask; raise it in your own config file or with --ceiling",
		"max_cost":   "cannot set what your runs may spend; set it in your own config file or with --max-cost",
	}
	for _, k := range []string{"data_roots", "ceilings", "max_cost"} {
		if line, ok := c.userOnly[k]; ok {
			return fmt.Errorf("config %s:%d: %s: a workspace evalmd.yaml (it may have come with sheets) %s", path, line, k, why[k])
		}
	}
	return nil
}

// replaysBelow refuses, in the workspace file path, a replay model or
// judge (replay:FILE) whose file resolves, as the run opens it (from the
// current folder, links followed), outside path's folder: the sheets'
// own files keep to their folder so, and the replay would read any file
// and answer with it. A file that does not exist is left to the replay,
// which names it.
func (c *Config) replaysBelow(path string) error {
	type named struct {
		member, model string
		line          int
	}
	var all []named
	for i, m := range c.Models {
		line := c.lines["models"]
		if i < len(c.modelLines) {
			line = c.modelLines[i]
		}
		all = append(all, named{"models", m, line})
	}
	all = append(all, named{"judge", c.Judge, c.lines["judge"]})
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	for _, n := range all {
		file, ok := strings.CutPrefix(strings.TrimSpace(n.model), "replay:")
		if !ok || file == "" {
			continue
		}
		abs, err := filepath.Abs(file)
		if err == nil && readfile.Within(abs, dir) {
			if real, err := filepath.EvalSymlinks(abs); err != nil || readfile.Within(real, resolved(dir)) {
				continue
			}
		}
		return fmt.Errorf("config %s:%d: %s: replay:%s resolves outside the folder of this evalmd.yaml (it may have come with sheets), which a replay file must be below; name a file elsewhere with -m replay:FILE",
			path, n.line, n.member, file)
	}
	return nil
}

// userFile is $XDG_CONFIG_HOME/evalmd/config.yaml, else
// $HOME/.config/evalmd/config.yaml, else none.
func userFile(getenv func(string) string) string {
	if getenv == nil {
		return ""
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "evalmd", "config.yaml")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "evalmd", "config.yaml")
	}
	return ""
}

// KeyName is the file, beside the user's config file, that holds the
// machine's key (outfile.LoadKey).
const KeyName = "seal.key"

// KeyFile is where the machine's key is kept: beside the user's config
// file ($XDG_CONFIG_HOME/evalmd/seal.key, else
// $HOME/.config/evalmd/seal.key); "" when the lookup reads no
// environment, or it names neither folder.
func (l Lookup) KeyFile() string {
	if f := userFile(l.Getenv); f != "" {
		return filepath.Join(filepath.Dir(f), KeyName)
	}
	return ""
}

// Key is the machine's key, made on first need (outfile.LoadKey), which
// seals the outputs evalmd writes so that only they are reused, and names
// a run's journal so that only this machine's is resumed. When it cannot
// be had (no user config folder, a key file others may read) the error
// says why, in one line: a command goes on without it, sealing, reusing
// and resuming nothing.
func (l Lookup) Key() (*outfile.Key, error) {
	path := l.KeyFile()
	if path == "" {
		return nil, errors.New("no user config folder ($XDG_CONFIG_HOME or $HOME) to keep the key evalmd seals its outputs with")
	}
	return outfile.LoadKey(path)
}

// workspace is the workspace file: the nearest evalmd.yaml at or above
// the sheets' folder, else at or above Dir; none when Dir is "".
func (l Lookup) workspace() (string, error) {
	if l.Dir == "" {
		return "", nil
	}
	if l.Sheets != "" {
		if p, err := workspaceFile(l.Sheets); p != "" || err != nil {
			return p, err
		}
	}
	return workspaceFile(l.Dir)
}

// workspaceFile is the nearest evalmd.yaml at or above dir.
func workspaceFile(dir string) (string, error) {
	if dir == "" {
		return "", nil
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("config: %w", err)
	}
	for {
		p := filepath.Join(dir, WorkspaceName)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
	}
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// merge lays f (read from path) over c.
func (c *Config) merge(f *Config, path string) {
	if len(f.Models) > 0 {
		c.Models, c.from["models"] = f.Models, path
	}
	if f.Judge != "" {
		c.Judge, c.from["judge"] = f.Judge, path
	}
	if f.Concurrency != "" {
		c.Concurrency, c.from["concurrency"] = f.Concurrency, path
	}
	for k, v := range f.Ceilings {
		if c.Ceilings == nil {
			c.Ceilings = map[string]string{}
		}
		c.Ceilings[k], c.from["ceilings."+k] = v, path
	}
	if len(f.DataRoots) > 0 {
		c.DataRoots, c.from["data_roots"] = f.DataRoots, path
	}
	if f.LatestVersion != nil {
		c.LatestVersion, c.from["latest_version"] = f.LatestVersion, path
	}
	for k, v := range f.Vision {
		if c.Vision == nil {
			c.Vision = map[string]bool{}
		}
		c.Vision[k], c.from["vision."+k] = v, path
	}
	if f.MaxCost != nil {
		c.MaxCost, c.from["max_cost"] = f.MaxCost, path
	}
	for k, v := range f.BaseURLs {
		if c.BaseURLs == nil {
			c.BaseURLs, c.lent = map[string]string{}, map[string]string{}
		}
		c.BaseURLs[k], c.from["base_urls."+k] = v, path
		delete(c.lent, k)
		if f.workspace {
			c.lent[k] = fmt.Sprintf("%s:%d", path, f.baseURLLines[k])
		}
	}
	c.settings = append(c.settings, f.settings...)
	for _, l := range f.settings {
		for k := range l.Values {
			c.from[k] = path
		}
	}
	for k, v := range f.Prices {
		if c.Prices == nil {
			c.Prices, c.prices = map[string]string{}, map[string]model.Price{}
		}
		c.Prices[k], c.prices[k], c.from["prices."+k] = v, f.prices[k], path
	}
}

// PriceTable is the files' prices by model name, parsed.
func (c *Config) PriceTable() map[string]model.Price {
	out := make(map[string]model.Price, len(c.prices))
	for k, v := range c.prices {
		out[k] = v
	}
	return out
}

// Price is the price the files give model (as named on the command line),
// if any.
func (c *Config) Price(name string) (model.Price, bool) {
	p, ok := c.prices[name]
	return p, ok
}

// Used names the files read, the one that wins first ("config: A, over
// B"), or says there was none.
func (c *Config) Used() string {
	if len(c.Files) == 0 {
		return "config: no file"
	}
	return "config: " + strings.Join(c.Files, ", over ")
}

// Describe lists the settings in force, one "name: value (file)" line
// each, in a fixed order; empty when the files set nothing.
func (c *Config) Describe() []string {
	var out []string
	add := func(key, val string) {
		out = append(out, fmt.Sprintf("%s: %s (%s)", key, val, c.from[key]))
	}
	if len(c.Models) > 0 {
		add("models", strings.Join(c.Models, ","))
	}
	if c.Judge != "" {
		add("judge", c.Judge)
	}
	if c.Concurrency != "" {
		add("concurrency", c.Concurrency)
	}
	if len(c.DataRoots) > 0 {
		add("data_roots", strings.Join(c.DataRoots, ", "))
	}
	if c.LatestVersion != nil {
		add("latest_version", fmt.Sprint(*c.LatestVersion))
	}
	for _, s := range setting.All {
		for i := len(c.settings) - 1; i >= 0; i-- { // the winning file's
			if v, ok := c.settings[i].Values[s.Name]; ok {
				add(s.Name, v)
				break
			}
		}
	}
	for _, k := range sortedKeys(c.BaseURLs) {
		add("base_urls."+k, c.BaseURLs[k])
	}
	for _, k := range sortedKeys(c.Prices) {
		add("prices."+k, c.Prices[k])
	}
	for _, k := range sortedKeys(c.Ceilings) {
		add("ceilings."+k, c.Ceilings[k])
	}
	return out
}

// ParseConcurrency reads a concurrency as run -c and the config's
// concurrency take it: a number of requests in flight (at least 1), or
// auto, an adaptive limit. Its error starts with the value.
func ParseConcurrency(text string) (n int, auto bool, err error) {
	if text = strings.TrimSpace(text); text == "auto" {
		return 0, true, nil
	}
	n, err = strconv.Atoi(text)
	switch {
	case err != nil:
		return 0, false, fmt.Errorf("%q: give a number of requests in flight, or auto", text)
	case n < 1:
		return 0, false, fmt.Errorf("%d: at least one request must be in flight", n)
	}
	return n, false, nil
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
