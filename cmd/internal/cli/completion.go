package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// Shells are the shells WriteCompletion writes scripts for.
var Shells = []string{"bash", "zsh", "fish"}

// WriteCompletion writes a completion script of root for shell (bash, zsh
// or fish): subcommand names (and aliases) where one is expected, then
// each command's flags; anything else completes file names. The scripts
// are made from the command table, so they name every flag the commands
// define and nothing else. A flag of one letter is offered as -x, a longer
// one as --name (the flag package takes both).
func WriteCompletion(w io.Writer, shell string, root *Command) error {
	var nodes []node
	walk(root, root.Name, &nodes)
	var err error
	switch shell {
	case "bash":
		err = bashScript(w, root.Name, nodes)
	case "zsh":
		err = zshScript(w, root.Name, nodes)
	case "fish":
		err = fishScript(w, root.Name, nodes)
	default:
		return Usagef("no completion for shell %q: give bash, zsh or fish", shell)
	}
	return err
}

// node is one command of the tree, named by its path ("evalmd_convert_dsbench").
type node struct {
	id    string
	cmd   *Command
	flags []*flag.Flag
	// edges are the words that lead to a subcommand: "run" and "eval".
	edges []edge
}

type edge struct {
	word, to string
}

func walk(c *Command, id string, nodes *[]node) {
	n := node{id: id, cmd: c}
	if c.Flags != nil {
		c.Flags.VisitAll(func(f *flag.Flag) { n.flags = append(n.flags, f) })
	}
	for _, sub := range c.Commands {
		to := id + "_" + strings.ReplaceAll(sub.Name, "-", "_")
		for _, word := range append([]string{sub.Name}, sub.Aliases...) {
			n.edges = append(n.edges, edge{word, to})
		}
	}
	*nodes = append(*nodes, n)
	for _, sub := range c.Commands {
		walk(sub, id+"_"+strings.ReplaceAll(sub.Name, "-", "_"), nodes)
	}
}

func dashed(f *flag.Flag) string {
	if len(f.Name) == 1 {
		return "-" + f.Name
	}
	return "--" + f.Name
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// describe is a flag's usage up to its first line break, its `name`
// quotes removed, for a one-line description.
func describe(f *flag.Flag) string {
	_, s := flag.UnquoteUsage(f)
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func bashScript(w io.Writer, name string, nodes []node) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# bash completion for %[1]s: source <(%[1]s completion bash)\n", name)
	fmt.Fprintf(&b, "_%s() {\n", name)
	fmt.Fprintf(&b, "    local cur=${COMP_WORDS[COMP_CWORD]} node=%s i subs= flags=\n", name)
	b.WriteString("    for ((i = 1; i < COMP_CWORD; i++)); do\n")
	b.WriteString("        case \"$node ${COMP_WORDS[i]}\" in\n")
	for _, n := range nodes {
		for _, e := range n.edges {
			fmt.Fprintf(&b, "            %q) node=%s ;;\n", n.id+" "+e.word, e.to)
		}
	}
	b.WriteString("            *) break ;;\n        esac\n    done\n")
	b.WriteString("    case $node in\n")
	for _, n := range nodes {
		var subs, flags []string
		for _, e := range n.edges {
			subs = append(subs, e.word)
		}
		for _, f := range n.flags {
			flags = append(flags, dashed(f))
		}
		fmt.Fprintf(&b, "        %s) subs=%q flags=%q ;;\n", n.id, strings.Join(subs, " "), strings.Join(flags, " "))
	}
	b.WriteString("    esac\n")
	b.WriteString("    if [[ $cur == -* ]]; then\n")
	b.WriteString("        COMPREPLY=($(compgen -W \"$flags\" -- \"$cur\"))\n")
	b.WriteString("    elif [[ -n $subs && $i == \"$COMP_CWORD\" ]]; then\n")
	b.WriteString("        COMPREPLY=($(compgen -W \"$subs\" -- \"$cur\"))\n")
	b.WriteString("    fi\n}\n")
	fmt.Fprintf(&b, "complete -o default -F _%[1]s %[1]s\n", name)
	_, err := io.WriteString(w, b.String())
	return err
}

// zshQuote puts s in single quotes.
func zshQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// zshSpecText escapes what _arguments reads in a flag's description.
func zshSpecText(s string) string {
	return strings.NewReplacer(`\`, `\\`, `[`, `\[`, `]`, `\]`, `:`, `\:`).Replace(s)
}

func zshScript(w io.Writer, name string, nodes []node) error {
	var b strings.Builder
	fmt.Fprintf(&b, "#compdef %s\n", name)
	fmt.Fprintf(&b, "# zsh completion for %[1]s: source <(%[1]s completion zsh), or save it as _%[1]s in a folder of $fpath\n", name)
	fmt.Fprintf(&b, "_%s() {\n", name)
	fmt.Fprintf(&b, "    local node=%s\n", name)
	b.WriteString("    local -a subs\n")
	b.WriteString("    while (( CURRENT > 2 )); do\n")
	b.WriteString("        case \"$node ${words[2]}\" in\n")
	for _, n := range nodes {
		for _, e := range n.edges {
			fmt.Fprintf(&b, "            %s) node=%s ;;\n", zshQuote(n.id+" "+e.word), e.to)
		}
	}
	b.WriteString("            *) break ;;\n        esac\n")
	b.WriteString("        shift words\n        (( CURRENT-- ))\n    done\n")
	b.WriteString("    case $node in\n")
	for _, n := range nodes {
		fmt.Fprintf(&b, "        %s)\n", n.id)
		if len(n.edges) > 0 {
			var items []string
			for _, e := range n.edges {
				sub := e.to
				for _, m := range nodes {
					if m.id == sub {
						items = append(items, zshQuote(e.word+":"+m.cmd.Short))
					}
				}
			}
			fmt.Fprintf(&b, "            subs=(%s)\n", strings.Join(items, " "))
			fmt.Fprintf(&b, "            if (( CURRENT == 2 )); then _describe -t commands %s subs; else _files; fi\n", zshQuote(strings.ReplaceAll(n.id, "_", " ")+" command"))
			b.WriteString("            ;;\n")
			continue
		}
		b.WriteString("            _arguments -s")
		for _, f := range n.flags {
			spec := dashed(f) + "[" + zshSpecText(describe(f)) + "]"
			if !isBool(f) {
				spec += ":" + f.Name + ":_files"
			}
			fmt.Fprintf(&b, " \\\n                %s", zshQuote(spec))
		}
		b.WriteString(" \\\n                '*:file:_files'\n            ;;\n")
	}
	b.WriteString("    esac\n}\n")
	fmt.Fprintf(&b, "if [[ $zsh_eval_context[-1] == loadautofunc ]]; then _%[1]s \"$@\"; else compdef _%[1]s %[1]s; fi\n", name)
	_, err := io.WriteString(w, b.String())
	return err
}

// fishQuote puts s in single quotes as fish reads them.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

func fishScript(w io.Writer, name string, nodes []node) error {
	var b strings.Builder
	fn := "__" + name + "_node"
	fmt.Fprintf(&b, "# fish completion for %[1]s: %[1]s completion fish | source\n", name)
	fmt.Fprintf(&b, "function %s\n", fn)
	fmt.Fprintf(&b, "    set -l node %s\n", name)
	b.WriteString("    for w in (commandline -opc)[2..-1]\n")
	b.WriteString("        switch \"$node $w\"\n")
	for _, n := range nodes {
		for _, e := range n.edges {
			fmt.Fprintf(&b, "            case %s\n                set node %s\n", fishQuote(n.id+" "+e.word), e.to)
		}
	}
	b.WriteString("            case '*'\n                break\n        end\n    end\n    echo $node\nend\n")
	for _, n := range nodes {
		cond := fishQuote(fmt.Sprintf("test (%s) = %s", fn, n.id))
		for _, e := range n.edges {
			short := ""
			for _, m := range nodes {
				if m.id == e.to {
					short = m.cmd.Short
				}
			}
			fmt.Fprintf(&b, "complete -c %s -f -n %s -a %s -d %s\n", name, cond, fishQuote(e.word), fishQuote(short))
		}
		for _, f := range n.flags {
			opt := "-l " + f.Name
			if len(f.Name) == 1 {
				opt = "-s " + f.Name
			}
			if !isBool(f) {
				opt += " -r"
			}
			fmt.Fprintf(&b, "complete -c %s -n %s %s -d %s\n", name, cond, opt, fishQuote(describe(f)))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
