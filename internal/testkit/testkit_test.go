package testkit

import (
	"net/http"
	"strings"
	"sync"
	"testing"
)

func TestBuildersWriteTheContractsFieldsInOrder(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{OK("t", "done", map[string]any{"n": 1}), `{"ok":true,"tool":"t","summary":"done","data":{"n":1},"warnings":[],"nextActions":[]}`},
		{RateLimit("t", "slow down", 20), `{"ok":false,"tool":"t","summary":"slow down","data":null,"warnings":[],"nextActions":[],"error":{"code":"rate_limit","message":"slow down"},"recoverable":true,"retryAfterMs":20}`},
		{Queued("run_vrt", "job_1", Warnings("w")), `{"ok":true,"tool":"run_vrt","summary":"Job job_1 queued.","data":{"jobId":"job_1","status":"queued"},"warnings":["w"],"nextActions":[]}`},
		{JobStatus("job_1", "completed", 2, 2, ""), `{"ok":true,"tool":"get_job_status","summary":"Job job_1 completed.","data":{"jobId":"job_1","progress":{"current":2,"message":"","total":2},"result":{"checked":2},"status":"completed"},"warnings":[],"nextActions":[]}`},
		{OK("t", "s", []byte(nil), NextActions(map[string]any{"tool": "x"})), `{"ok":true,"tool":"t","summary":"s","data":null,"warnings":[],"nextActions":[{"tool":"x"}]}`},
	} {
		if tc.got != tc.want {
			t.Errorf("got  %s\nwant %s", tc.got, tc.want)
		}
	}
}

func TestServerRecordsEveryCall(t *testing.T) {
	s := NewServer(t, Script(Answer(429, "a"), Answer(200, "b")))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			req, _ := http.NewRequest(http.MethodPost, s.URL+"/api/mcp/v1/invoke", strings.NewReader(`{"tool":"t","args":{"n":1}}`))
			req.Header.Set("Authorization", "Bearer k")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
		})
	}
	wg.Wait()
	resp, err := http.Post(s.URL+"/api/ci/run_vrt", "application/json", strings.NewReader(`{"branch":"main"}`))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v: the last scripted reply must repeat", resp, err)
	}
	resp.Body.Close()
	calls := s.Calls()
	if s.Count() != 9 || len(calls) != 9 || calls[0].Tool != "t" || calls[0].Args["n"].(interface{ String() string }).String() != "1" ||
		calls[0].Header.Get("Authorization") != "Bearer k" {
		t.Fatalf("calls %+v", calls)
	}
	if last := s.Last(); !last.CI || last.Tool != "run_vrt" || last.Args["branch"] != "main" || string(last.Raw) != `{"branch":"main"}` {
		t.Errorf("CI call %+v", last)
	}
	if len(s.CallsOf("t")) != 8 || s.Env()["VQ_API_KEY"] != DefaultKey || s.Env()["VQ_BASE_URL"] != s.URL {
		t.Errorf("CallsOf %d, Env %v", len(s.CallsOf("t")), s.Env())
	}
}
