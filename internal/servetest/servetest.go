package servetest

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	binaryOnce sync.Once
	binaryPath string
	binaryErr  error
	binaryDir  string
)

// Binary builds cmd/datamonsters once per test process into a temporary
// folder that any user may read and run (a test may run it as another
// user), and returns its path. Call RemoveBinary from TestMain.
func Binary(t testing.TB) string {
	t.Helper()
	binaryOnce.Do(func() {
		if binaryDir, binaryErr = os.MkdirTemp("", "datamonsters-bin-"); binaryErr != nil {
			return
		}
		if binaryErr = os.Chmod(binaryDir, 0o755); binaryErr != nil {
			return
		}
		binaryPath = filepath.Join(binaryDir, "datamonsters")
		out, err := exec.Command("go", "build", "-o", binaryPath, "github.com/datamonsters/turns/cmd/datamonsters").CombinedOutput()
		if err != nil {
			binaryErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binaryErr != nil {
		t.Fatal(binaryErr)
	}
	return binaryPath
}

// RemoveBinary removes what Binary built; TestMain calls it after m.Run.
func RemoveBinary() {
	if binaryDir != "" {
		os.RemoveAll(binaryDir)
	}
}

// Main runs the tests of a package that starts the built server, then
// removes what Binary built, and exits with the tests' code: a TestMain of
// one line.
func Main(m *testing.M) {
	code := m.Run()
	RemoveBinary()
	os.Exit(code)
}

// FreeAddr returns a loopback address whose port nothing listens on.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// Buffer is a bytes.Buffer that a process writes while the test reads it.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Server is a running `datamonsters serve` process.
type Server struct {
	Addr   string  // its ADDR, 127.0.0.1:port
	Base   string  // "http://" + Addr
	Stderr *Buffer // its logs
	cmd    *exec.Cmd
	exited chan error // gets the process's exit once
}

// Start runs `datamonsters serve` with the environment env (the whole of
// it: pass append(os.Environ(), ...) to inherit), adding ADDR with a free
// loopback port unless env sets one, and waits until it answers /readyz.
// When the test ends the process gets SIGTERM, and SIGKILL 20 s later.
func Start(t testing.TB, env []string) *Server {
	t.Helper()
	s := &Server{Stderr: &Buffer{}}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "ADDR="); ok {
			s.Addr = v
		}
	}
	if s.Addr == "" {
		s.Addr = FreeAddr(t)
		env = append(env, "ADDR="+s.Addr)
	}
	s.Base = "http://" + s.Addr
	s.cmd = exec.Command(Binary(t), "serve")
	s.cmd.Env = env
	s.cmd.Stderr = s.Stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	s.exited = exited
	go func() { exited <- s.cmd.Wait() }()
	t.Cleanup(func() {
		s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			s.cmd.Process.Kill()
			<-exited
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		res, err := http.Get(s.Base + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return s
			}
		}
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("the server exited: %v\n%s", err, s.Stderr)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not get ready\n%s", s.Stderr)
		}
	}
}

// Kill ends the process with SIGKILL: no shutdown, no deferred work. It
// returns once the process is gone, so nothing it writes comes later.
func (s *Server) Kill(t testing.TB) {
	t.Helper()
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	err := <-s.exited
	s.exited <- err // for the cleanup's wait
}
