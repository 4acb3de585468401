package sandbox

import (
	"math"
	"sync"
	"time"
)

// rateLimiter is a token bucket per API key. A nil limiter lets everything
// through.
type rateLimiter struct {
	rate  float64 // tokens per second
	burst float64

	mu      sync.Mutex
	buckets map[string]*bucket
	now     func() time.Time
}

type bucket struct {
	tokens float64
	last   time.Time
}

func newRateLimiter(rate float64, burst int) *rateLimiter {
	if rate < 0 {
		return nil
	}
	if burst <= 0 {
		burst = max(1, int(math.Ceil(2*rate)))
	}
	return &rateLimiter{rate: rate, burst: float64(burst), buckets: map[string]*bucket{}, now: time.Now}
}

// allow takes a token for key, or says how long until one is available.
func (l *rateLimiter) allow(key string) (bool, time.Duration) {
	if l == nil {
		return true, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b, ok := l.buckets[key]
	if !ok {
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[key] = b
	}
	b.tokens = min(l.burst, b.tokens+now.Sub(b.last).Seconds()*l.rate)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	// Round up to whole milliseconds, the unit of retryAfterMs, so a client
	// that waits exactly that long finds a token.
	waitMs := math.Ceil((1 - b.tokens) / l.rate * 1000)
	return false, time.Duration(max(1, waitMs)) * time.Millisecond
}
