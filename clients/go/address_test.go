package engram

import (
	"strings"
	"testing"
)

// The address forms every Engram client accepts (the TypeScript, Python and Java
// clients take the same).
func TestSplitAddressTakesTheFormsEveryClientTakes(t *testing.T) {
	cases := []struct {
		address, target string
		tls             bool
	}{
		{"127.0.0.1:50051", "127.0.0.1:50051", false},
		{"http://127.0.0.1:50051", "127.0.0.1:50051", false},
		{"http://127.0.0.1:50051/", "127.0.0.1:50051", false},
		{"HTTPS://engram.example:443", "engram.example:443", true},
		{"dns:///engram.example:50051", "dns:///engram.example:50051", false},
		{"unix:///run/engram.sock", "unix:///run/engram.sock", false},
		// A URL without a port takes its scheme's, in every client.
		{"http://engram.internal", "engram.internal:80", false},
		{"https://engram.example/", "engram.example:443", true},
		{"http://[::1]", "[::1]:80", false},
	}
	for _, c := range cases {
		target, useTLS, err := SplitAddress(c.address)
		if err != nil || target != c.target || useTLS != c.tls {
			t.Errorf("SplitAddress(%q) = %q, %v, %v; want %q, %v", c.address, target, useTLS, err, c.target, c.tls)
		}
	}
	_, _, err := SplitAddress("http://127.0.0.1:50051/v1")
	if err == nil || !strings.Contains(err.Error(), "host:port, http://host:port") {
		t.Errorf("a path must be refused with the forms to use, got %v", err)
	}
	for _, address := range []string{"grpc://127.0.0.1:50051", "tcp://127.0.0.1:50051"} {
		_, _, err := SplitAddress(address)
		if err == nil || !strings.Contains(err.Error(), "unknown scheme") || !strings.Contains(err.Error(), AddressForms) {
			t.Errorf("an unknown scheme must be refused with the forms to use, got %v for %q", err, address)
		}
	}
	if _, err := New(WithAddress("grpc://127.0.0.1:50051")); err == nil {
		t.Error("New must refuse an unknown scheme")
	}
	if _, err := New(WithAddress("http://127.0.0.1:1/v1")); err == nil {
		t.Error("New must refuse an address with a path")
	}
	client, err := New(WithAddress("http://127.0.0.1:50051"))
	if err != nil || client.Address != "127.0.0.1:50051" {
		t.Fatalf("New(http://...) = %v, %v", client, err)
	}
	client.Close()
}
