// Package redisbuild is what makes retry-redis retry with the Redis
// client: the Deps of cmd/retry-redis, and of the retry that the tests'
// scripts run.
package redisbuild

import (
	"time"

	"retry/breaker"
	"retry/breaker/redisclient"
	"retry/cmd"
)

// Deps are cmd.SystemDeps with the Redis client and no hand-off: this
// build runs redis:// state itself.
func Deps() cmd.Deps {
	deps := cmd.SystemDeps()
	deps.Redis = dial
	deps.HandOff = nil
	return deps
}

// dial makes a go-redis client of the server url names.
func dial(url string, timeout time.Duration) (breaker.RedisClient, error) {
	return redisclient.Dial(url, timeout)
}
