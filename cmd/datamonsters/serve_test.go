package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/datamonsters/turns/internal/servetest"
)

func TestMain(m *testing.M) { servetest.Main(m) }

// TestUnwritableDataDir: `serve` on a DATA_DIR it cannot write (a Docker
// volume owned by root, the image running as uid 65532) exits at once
// with an error that names the folder, the user and the fix, instead of
// failing on its first write. As root the binary runs as uid 65532; as
// another user the folder is made read-only.
func TestUnwritableDataDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(servetest.Binary(t), "serve")
	cmd.Env = []string{"DATA_DIR=" + dir, "ADDR=" + servetest.FreeAddr(t)}
	uid := os.Getuid()
	if uid == 0 {
		uid = 65532
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65532, Gid: 65532}}
	} else if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("serve did not exit on an unwritable DATA_DIR\n%s", stderr.String())
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() == 0 {
		t.Fatalf("exit: %v\n%s", err, stderr.String())
	}
	msg := stderr.String()
	for _, want := range []string{"DATA_DIR " + dir + " is not writable", fmt.Sprintf("uid %d", uid), fmt.Sprintf("chown -R %d %s", uid, dir)} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error does not say %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "panic") || strings.Count(msg, "\n") > 3 {
		t.Errorf("want a short error, got:\n%s", msg)
	}
}
