package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFetchExitsLikeCurlFailFast(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("down") != "" {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(srv.Close)

	code, err := fetch(srv.URL+"/", 5*time.Second)
	assert.NoError(t, err)
	assert.Equal(t, 0, code)

	code, err = fetch(srv.URL+"/?down=1", 5*time.Second)
	assert.ErrorContains(t, err, "returned error: 503")
	assert.Equal(t, 22, code)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "http://" + ln.Addr().String() + "/"
	require.NoError(t, ln.Close())
	code, _ = fetch(closed, 5*time.Second)
	assert.Equal(t, 7, code, "connection refused")

	code, err = fetch("http://example.com/", 5*time.Second)
	assert.ErrorContains(t, err, "refusing non-loopback host")
	assert.Equal(t, 3, code)
}
