package engram_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// testServer is the live server of the tests: the one scripts/test-clients
// shares through ENGRAM_TEST_SERVER, else a fresh `engram serve` started by
// TestMain with clients/testing/engram_test_server.py (stopped when its stdin
// closes).
type testServer struct {
	Address     string `json:"address"`
	PlatformKey string `json:"platform_key"`
	Tenants     map[string]struct {
		ID  string `json:"id"`
		Key string `json:"key"`
	} `json:"tenants"`
}

var server testServer

// repoRoot: this package is clients/go.
func repoRoot() string {
	wd, _ := os.Getwd()
	return filepath.Join(wd, "..", "..")
}

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	line := os.Getenv("ENGRAM_TEST_SERVER")
	if line == "" {
		python := os.Getenv("ENGRAM_PYTHON")
		if python == "" {
			python = filepath.Join(repoRoot(), ".venv", "bin", "python")
		}
		cmd := exec.Command(python, filepath.Join(repoRoot(), "clients", "testing", "engram_test_server.py"))
		cmd.Stderr = os.Stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer func() {
			_ = stdin.Close()
			_ = cmd.Wait()
		}()
		reader := bufio.NewReader(stdout)
		line, err = reader.ReadString('\n')
		if err != nil {
			fmt.Fprintln(os.Stderr, "engram_test_server.py:", err)
			return 1
		}
		go func() { _, _ = io.Copy(io.Discard, reader) }()
	}
	if err := json.Unmarshal([]byte(line), &server); err != nil {
		fmt.Fprintln(os.Stderr, "ENGRAM_TEST_SERVER:", err)
		return 1
	}
	return m.Run()
}
