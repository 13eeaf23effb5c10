package prompt

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/template"
	"text/template/parse"
	"time"

	"github.com/evalmd/evalmd/sheet"
)

// Bounds of a sheet's template, which the dry run and check execute on a
// stranger's sheet: text/template has none, and a range over a large
// number runs for ever, rendering or not.
const (
	// maxMessage bounds a message a template renders, and each string
	// its print functions make: as a reply is bounded
	// (model.DefaultMaxReply), some eight million tokens, past any
	// model's context.
	maxMessage = 32 << 20
	// maxSteps bounds the steps of a question's templates: each action
	// and each pass of a range's body. A template of a hundred actions
	// ranging over a hundred files takes ten thousand; a million took
	// a second.
	maxSteps = 100_000
	// maxTemplateTime bounds how long a question's templates run, the
	// tables they render (Data.Table) left out.
	maxTemplateTime = 2 * time.Second
)

// execute runs the question's template t on d within one budget: the
// user message, and the system message when t defines "system". A
// template stopped at a bound is not run again: the other questions it
// serves get its error at once, so that a sheet of many questions under
// one bomb costs one budget, not one each.
func (b *Builder) execute(ctx context.Context, sheetPath string, it *sheet.Item, t *template.Template, d Data) (string, *string, error) {
	b.mu.Lock()
	le := b.stopped[it.Template]
	b.mu.Unlock()
	if le != nil {
		return "", nil, templateError(sheetPath, it, le)
	}
	bud := newBudget(ctx)
	table := d.table
	d.table = func(name string) (string, error) {
		defer bud.pause()()
		return table(name)
	}
	user, err := bud.execute(t, t.Name(), d)
	if err == nil && strings.TrimSpace(user) == "" {
		return "", nil, fmt.Errorf("%s:%d: question %q: the template (templates section at line %d) renders an empty user message",
			sheetPath, it.Line, it.Name, it.Template.Line)
	}
	system := it.System
	if err == nil && t.Lookup("system") != nil {
		var s string
		s, err = bud.execute(t, "system", d)
		system = &s
	}
	if err != nil {
		if le, ok := errors.AsType[*limitError](err); ok {
			b.mu.Lock()
			if b.stopped == nil {
				b.stopped = map[*sheet.Located]*limitError{}
			}
			b.stopped[it.Template] = le
			b.mu.Unlock()
		}
		return "", nil, templateError(sheetPath, it, err)
	}
	return user, system, nil
}

// stepFunc is the function guard puts before every action and at the
// start of every list of a template. It is added to a template's
// functions only when it executes, so a sheet cannot call it.
const stepFunc = "evalmdStep"

// budget is what a question's templates have spent, and where: pos is
// the place in the template text of the last step taken.
type budget struct {
	ctx      context.Context
	deadline time.Time
	steps    int
	pos      int
}

// limitError is a template stopped at a bound, at byte pos of its text.
type limitError struct {
	pos int
	msg string
}

func (e *limitError) Error() string { return e.msg }

func newBudget(ctx context.Context) *budget {
	return &budget{ctx: ctx, deadline: time.Now().Add(maxTemplateTime)}
}

// pause stops b's clock until the function it returns is called.
func (b *budget) pause() func() {
	start := time.Now()
	return func() { b.deadline = b.deadline.Add(time.Since(start)) }
}

// step counts one step, taken at byte pos of the template text.
func (b *budget) step(pos int) (string, error) {
	b.steps++
	b.pos = pos
	switch {
	case b.steps > maxSteps:
		return "", &limitError{pos, fmt.Sprintf("stopped after %d steps (actions and passes of a range): a template may take at most %d", maxSteps, maxSteps)}
	case b.steps%1024 == 0 && b.ctx.Err() != nil:
		return "", b.ctx.Err()
	case b.steps%64 == 0 && time.Now().After(b.deadline):
		return "", &limitError{pos, fmt.Sprintf("stopped after %v: a template may run at most %v", maxTemplateTime, maxTemplateTime)}
	}
	return "", nil
}

// funcs are the functions a template executes with: the step counter,
// and the builtins that make strings, each bounded to maxMessage.
func (b *budget) funcs() template.FuncMap {
	bounded := func(name string, f func(...any) string) func(...any) (string, error) {
		return func(args ...any) (string, error) {
			return b.check(name, f(args...))
		}
	}
	return template.FuncMap{
		stepFunc:   b.step,
		"print":    bounded("print", fmt.Sprint),
		"println":  bounded("println", fmt.Sprintln),
		"html":     bounded("html", template.HTMLEscaper),
		"js":       bounded("js", template.JSEscaper),
		"urlquery": bounded("urlquery", template.URLQueryEscaper),
		"printf": func(format string, args ...any) (string, error) {
			return b.check("printf", fmt.Sprintf(format, args...))
		},
	}
}

// check refuses a string a print function made past maxMessage.
func (b *budget) check(name, s string) (string, error) {
	if len(s) > maxMessage {
		return "", &limitError{b.pos, fmt.Sprintf("%s makes more than %d MiB: a message may hold at most %d MiB", name, maxMessage>>20, maxMessage>>20)}
	}
	return s, nil
}

// execute runs the template name of t (guarded) on d within b, into a
// string of at most maxMessage bytes.
func (b *budget) execute(t *template.Template, name string, d Data) (string, error) {
	c, err := t.Clone()
	if err != nil {
		return "", err
	}
	c.Funcs(b.funcs())
	w := &limitWriter{b: b}
	if err := c.ExecuteTemplate(w, name, d); err != nil {
		return "", err
	}
	return w.buf.String(), nil
}

// limitWriter holds what a template renders, failing its execution once
// past maxMessage.
type limitWriter struct {
	b   *budget
	buf strings.Builder
}

func (w *limitWriter) Write(p []byte) (int, error) {
	if len(p) > maxMessage-w.buf.Len() {
		return 0, &limitError{w.b.pos, fmt.Sprintf("renders more than %d MiB: a message may hold at most %d MiB", maxMessage>>20, maxMessage>>20)}
	}
	return w.buf.Write(p)
}

// guard refuses a template of t that calls itself or nests past
// maxNesting, and puts a step before every action of each and at the
// start of every list, so that a range, whose passes may take no action,
// and a template calling templates count against a budget.
func guard(t *template.Template) error {
	c := &nesting{t: t, depth: map[string]int{}, busy: map[string]bool{}}
	for _, tt := range t.Templates() {
		if _, err := c.tree(tt.Name()); err != nil {
			return err
		}
	}
	for _, tt := range t.Templates() {
		if tt.Tree != nil && tt.Tree.Root != nil {
			guardList(tt.Tree.Root)
		}
	}
	return nil
}

// maxNesting bounds how deep a template's ranges, ifs, withs and
// template calls nest. A step stopped deep down unwinds through every
// range above it, each recovering and panicking again: at the depth
// text/template allows (100000 template calls) that took minutes.
const maxNesting = 100

// nesting finds how deep each template of t nests, refusing a template
// that calls itself, which nothing in a template's data could end.
type nesting struct {
	t     *template.Template
	depth map[string]int
	busy  map[string]bool // the templates being walked
}

// tree is how deep the template name nests (0 when undefined: its call
// fails when executed).
func (c *nesting) tree(name string) (int, error) {
	if d, ok := c.depth[name]; ok {
		return d, nil
	}
	tt := c.t.Lookup(name)
	if tt == nil || tt.Tree == nil {
		return 0, nil
	}
	c.busy[name] = true
	d, err := c.list(tt.Tree.Root)
	delete(c.busy, name)
	c.depth[name] = d
	return d, err
}

// list is how deep the nodes of l nest.
func (c *nesting) list(l *parse.ListNode) (int, error) {
	if l == nil {
		return 0, nil
	}
	deepest := 0
	for _, n := range l.Nodes {
		d, err := c.node(n)
		if err != nil {
			return 0, err
		}
		if d > maxNesting {
			return 0, &limitError{int(n.Position()), fmt.Sprintf("nested more than %d deep (range, if, with and template calls)", maxNesting)}
		}
		deepest = max(deepest, d)
	}
	return deepest, nil
}

// node is how deep n nests.
func (c *nesting) node(n parse.Node) (int, error) {
	var b *parse.BranchNode
	switch n := n.(type) {
	case *parse.IfNode:
		b = &n.BranchNode
	case *parse.RangeNode:
		b = &n.BranchNode
	case *parse.WithNode:
		b = &n.BranchNode
	case *parse.ListNode:
		return c.list(n)
	case *parse.TemplateNode:
		if c.busy[n.Name] {
			return 0, &limitError{int(n.Position()), fmt.Sprintf("template %q calls itself: a template may not", n.Name)}
		}
		d, err := c.tree(n.Name)
		return d + 1, err
	default:
		return 0, nil
	}
	d, err := c.list(b.List)
	if err != nil {
		return 0, err
	}
	e, err := c.list(b.ElseList)
	return 1 + max(d, e), err
}

// guardList guards the list l and the lists within it.
func guardList(l *parse.ListNode) {
	if l == nil {
		return
	}
	nodes := make([]parse.Node, 0, 2*len(l.Nodes)+1)
	nodes = append(nodes, stepNode(l.Position()))
	for _, n := range l.Nodes {
		switch n := n.(type) {
		case *parse.TextNode, *parse.CommentNode:
			nodes = append(nodes, n)
			continue
		case *parse.IfNode:
			guardList(n.List)
			guardList(n.ElseList)
		case *parse.RangeNode:
			guardList(n.List)
			guardList(n.ElseList)
		case *parse.WithNode:
			guardList(n.List)
			guardList(n.ElseList)
		case *parse.ListNode:
			guardList(n)
		}
		nodes = append(nodes, stepNode(n.Position()), n)
	}
	l.Nodes = nodes
}

// stepNode is the action {{evalmdStep POS}} at pos, which prints nothing.
func stepNode(pos parse.Pos) parse.Node {
	arg := &parse.NumberNode{NodeType: parse.NodeNumber, Pos: pos, IsInt: true, Int64: int64(pos), Text: fmt.Sprint(int(pos))}
	cmd := &parse.CommandNode{NodeType: parse.NodeCommand, Pos: pos, Args: []parse.Node{parse.NewIdentifier(stepFunc).SetPos(pos), arg}}
	return &parse.ActionNode{NodeType: parse.NodeAction, Pos: pos, Pipe: &parse.PipeNode{NodeType: parse.NodePipe, Pos: pos, Cmds: []*parse.CommandNode{cmd}}}
}

// lineAt is the line (from 1) of byte pos of text.
func lineAt(text string, pos int) int {
	return 1 + strings.Count(text[:min(max(pos, 0), len(text))], "\n")
}
