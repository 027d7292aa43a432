package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The browser tests drive Debian's Chromium (apt-get install -y chromium)
// with chromedp. They skip under -short. Without the browser they skip,
// and fail in CI (CI set). On failure each tab's page is kept as
// screenshots at 1280 and 360 px wide in a folder the log names; with
// WEB_SCREENSHOTS=<folder> every page the tests look at is kept there.

// chromiumPath is the browser the tests drive.
const chromiumPath = "/usr/bin/chromium"

// needBrowser skips or fails the test when it cannot run a browser.
func needBrowser(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test: skipped under -short")
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is missing: apt-get install -y chromium", chromiumPath)
		}
		t.Skipf("%s is missing: apt-get install -y chromium", chromiumPath)
	}
}

// browser starts Chromium, headless, with a fresh profile, for the test.
// Flags that keep it off the network: on a closed network its own
// connections are refused and slow it down.
func browser(t *testing.T) context.Context {
	t.Helper()
	needBrowser(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("headless", true), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	root, cancel := chromedp.NewContext(alloc)
	if err := chromedp.Do(root); err != nil { // starts the browser
		cancel()
		cancelAlloc()
		t.Fatalf("start %s: %v", chromiumPath, err)
	}
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	return root
}

// tab is one independent browser session (a browser context of its own:
// its own cookies) on the site.
type tab struct {
	t    *testing.T
	name string
	ctx  context.Context
	s    *site

	mu      sync.Mutex
	dialogs []string // the messages of the dialogs the page opened
	dismiss bool     // the dialogs are dismissed, not accepted

	// vw and vh are the viewport the test set (width); 0: the window's
	// 1280 by 900. A look at other widths (axe, screenshots) comes back
	// to it.
	vw, vh int64
}

// viewport is the tab's viewport as the test set it.
func (b *tab) viewport() (w, h int64) {
	if b.vw == 0 {
		return 1280, 900
	}
	return b.vw, b.vh
}

// restore sets the viewport back to the test's, after a look at another
// width.
func (b *tab) restore() error {
	w, h := b.viewport()
	return chromedp.Do(b.ctx, chromedp.EmulateViewport(w, h))
}

// atWidth fails unless the page is laid out w px wide: the width the
// test means to check it at.
func (b *tab) atWidth(w int64) {
	b.t.Helper()
	got, err := chromedp.Run(b.ctx, chromedp.Evaluate[int64](`window.innerWidth`))
	if err != nil || got != w {
		b.t.Fatalf("%s: the page is %d px wide, not %d (%v)", b.name, got, w, err)
	}
}

// asked returns the messages of the dialogs the page opened since the
// last call (a move that asks before it is sent), and forgets them.
func (b *tab) asked() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := b.dialogs
	b.dialogs = nil
	return out
}

// tabs opens one tab per name, each in a browser context of its own. When
// the test fails, each tab's page is saved at 1280 and 360 px wide.
func (s *site) tabs(t *testing.T, root context.Context, names ...string) []*tab {
	t.Helper()
	var out []*tab
	for _, n := range names {
		ctx, cancel := chromedp.NewContext(root, chromedp.WithNewBrowserContext())
		if err := chromedp.Do(ctx); err != nil {
			t.Fatal(err)
		}
		tb := &tab{t: t, name: n, ctx: ctx, s: s}
		// A dialog (a move that asks first) is accepted, as a player who
		// reads it and goes on would (or dismissed, when the test says so),
		// and kept for the test to read.
		dialogs := make(chan string, 16)
		chromedp.Listen(ctx, func(ev any) {
			if e, ok := ev.(*page.EventJavascriptDialogOpening); ok {
				select {
				case dialogs <- e.Message:
				default:
				}
			}
		})
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case msg := <-dialogs:
					tb.mu.Lock()
					tb.dialogs = append(tb.dialogs, msg)
					accept := !tb.dismiss
					tb.mu.Unlock()
					chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: accept})
				}
			}
		}()
		t.Cleanup(cancel)
		t.Cleanup(func() { // runs before cancel
			if t.Failed() {
				tb.keep(failureDir(t), "failed")
			}
		})
		out = append(out, tb)
	}
	return out
}

var (
	failureDirs  sync.Map // test name → folder
	shotsCounter sync.Map // folder → *int
)

// failureDir is where a failed test's screenshots go: a folder that
// outlives the test, named after it.
func failureDir(t *testing.T) string {
	if d, ok := failureDirs.Load(t.Name()); ok {
		return d.(string)
	}
	d, err := os.MkdirTemp("", "web-"+regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(t.Name(), "-")+"-")
	if err != nil {
		t.Log(err)
		return os.TempDir()
	}
	failureDirs.Store(t.Name(), d)
	return d
}

// keep saves the tab's page as PNG screenshots of the whole page at 1280
// and 360 px wide in dir, logs their paths, and returns them. The
// viewport is the test's again after.
func (b *tab) keep(dir, label string) []string {
	var paths []string
	loc, _ := chromedp.Run(b.ctx, chromedp.Location())
	for _, w := range []int64{1280, 360} {
		ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
		var png []byte
		err := chromedp.Do(ctx, chromedp.EmulateViewport(w, 800))
		if err == nil {
			png, err = chromedp.Run(ctx, chromedp.FullScreenshot(100))
		}
		cancel()
		if err != nil {
			b.t.Logf("screenshot of %s: %v", b.name, err)
			continue
		}
		n, _ := shotsCounter.LoadOrStore(dir, new(int))
		*n.(*int)++
		p := filepath.Join(dir, fmt.Sprintf("%02d-%s-%s-%d.png", *n.(*int), b.name, label, w))
		if err := os.WriteFile(p, png, 0o644); err != nil {
			b.t.Log(err)
			continue
		}
		b.t.Logf("screenshot of %s (%s) at %d px: %s", b.name, loc, w, p)
		paths = append(paths, p)
	}
	b.restore()
	return paths
}

// look keeps screenshots of the page when WEB_SCREENSHOTS names a folder.
func (b *tab) look(label string) {
	if dir := os.Getenv("WEB_SCREENSHOTS"); dir != "" {
		os.MkdirAll(dir, 0o755)
		b.keep(dir, label)
	}
}

// run runs actions on the tab, failing the test on an error, within 20 s.
func (b *tab) run(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.t.Fatalf("%s: %v", b.name, err)
	}
}

// open loads path (or an absolute URL) and returns the HTTP status of the
// page.
func (b *tab) open(path string) int64 {
	b.t.Helper()
	if !strings.HasPrefix(path, "http") {
		path = b.s.url + path
	}
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	r, err := chromedp.Run(ctx, chromedp.NavigateResponse(path))
	if err != nil {
		b.t.Fatalf("%s: open %s: %v", b.name, path, err)
	}
	return r.Status
}

// fill types value into the field with id, after clearing it.
func (b *tab) fill(id, value string) {
	b.t.Helper()
	b.run(chromedp.Clear(chromedp.ID(id)), chromedp.SendKeys(chromedp.ID(id), value))
}

// choose sets the select with id to value.
func (b *tab) choose(id, value string) {
	b.t.Helper()
	b.run(chromedp.SetValue(chromedp.ID(id), value))
}

// press clicks the element sel (a button that sends a form, or a link),
// waits for the page that follows, and returns its HTTP status.
func (b *tab) press(sel string) int64 {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	r, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(sel)))
	if err != nil {
		b.t.Fatalf("%s: press %s: %v", b.name, sel, err)
	}
	return r.Status
}

// text is the visible text of the page.
func (b *tab) text() string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.body.innerText`))
	if err != nil {
		b.t.Fatal(err)
	}
	return s
}

// see fails unless the page's visible text has every one of texts.
func (b *tab) see(texts ...string) {
	b.t.Helper()
	page := b.text()
	for _, s := range texts {
		if !strings.Contains(page, s) {
			loc, _ := chromedp.Run(b.ctx, chromedp.Location())
			b.t.Fatalf("%s: %s does not say %q:\n%s", b.name, loc, s, page)
		}
	}
}

// path is the path of the page shown.
func (b *tab) path() string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`location.pathname + location.search`))
	if err != nil {
		b.t.Fatal(err)
	}
	return s
}

// cookies returns the browser's cookies for the site.
func (b *tab) cookies() []*network.Cookie {
	b.t.Helper()
	res, err := chromedp.Call(b.ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{b.s.url + "/"}})
	if err != nil {
		b.t.Fatal(err)
	}
	return res.Cookies
}

// axeSource is axe-core's script, read once.
var axeSource = sync.OnceValues(func() (string, error) {
	path := os.Getenv("AXE_CORE_JS")
	if path == "" {
		path = filepath.Join("testdata", "axe", "node_modules", "axe-core", "axe.min.js")
	}
	data, err := os.ReadFile(path)
	return string(data), err
})

// needAxe fails in CI, and skips elsewhere, without axe-core.
func needAxe(t *testing.T) string {
	t.Helper()
	src, err := axeSource()
	if err != nil {
		msg := "axe-core is missing (" + err.Error() + "): npm install --prefix web/testdata/axe --no-save axe-core@" + axeVersion +
			", or set AXE_CORE_JS to its axe.min.js"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return src
}

// axeVersion is the axe-core that .ci/run installs.
const axeVersion = "4.14.1"

// violation is one serious or critical finding of axe-core.
type violation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// axe runs axe-core on the page, at 1280 and 360 px wide, and fails the
// test for any serious or critical violation. The viewport is the test's
// again after.
func (b *tab) axe(src string) {
	b.t.Helper()
	for _, w := range []int64{1280, 360} {
		b.run(chromedp.EmulateViewport(w, 800))
		b.run(chromedp.Evaluate[chromedp.Void](src))
		raw, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]byte](`
			axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations
				.filter(v => v.impact === "serious" || v.impact === "critical")
				.map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map(n => n.target.join(" "))})))`,
			chromedp.EvalAwaitPromise))
		if err != nil {
			b.t.Fatalf("%s: axe: %v", b.name, err)
		}
		var vs []violation
		if err := json.Unmarshal(raw, &vs); err != nil {
			b.t.Fatalf("axe's answer %s: %v", raw, err)
		}
		if len(vs) > 0 {
			b.t.Errorf("%s: %s at %d px: %d serious or critical accessibility violations: %+v", b.name, b.path(), w, len(vs), vs)
		}
	}
	if err := b.restore(); err != nil {
		b.t.Fatalf("%s: %v", b.name, err)
	}
}

// tabThrough presses Tab through the page and fails unless every
// control (link, button, field) is reached, each with a visible focus
// outline.
func (b *tab) tabThrough() {
	b.t.Helper()
	total, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelectorAll(
		"a[href], button, input:not([type=hidden]):not([hidden]), select, textarea").length`))
	if err != nil {
		b.t.Fatal(err)
	}
	b.run(chromedp.Evaluate[chromedp.Void](`document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0)`))
	reached := map[string]bool{}
	for i := 0; i < 3*total+10 && len(reached) < total; i++ { // a date field takes a Tab per part
		b.run(chromedp.KeyEvent(kb.Tab))
		raw, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]byte](`(() => {
			const e = document.activeElement;
			if (!e || e === document.body) return null;
			const s = getComputedStyle(e);
			const all = [...document.querySelectorAll("a[href], button, input:not([type=hidden]):not([hidden]), select, textarea")];
			return {index: all.indexOf(e), what: e.outerHTML.slice(0, 80),
				outline: s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 2};
		})()`))
		if err != nil {
			b.t.Fatal(err)
		}
		var f *struct {
			Index   int    `json:"index"`
			What    string `json:"what"`
			Outline bool   `json:"outline"`
		}
		if json.Unmarshal(raw, &f); f == nil || f.Index < 0 {
			continue
		}
		if !f.Outline {
			b.t.Errorf("%s: %s has no visible focus outline", b.path(), f.What)
		}
		reached[fmt.Sprint(f.Index)] = true
	}
	if len(reached) != total {
		b.t.Errorf("%s: Tab reached %d of the %d controls", b.path(), len(reached), total)
	}
}
