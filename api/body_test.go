package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/visualq/vq/internal/testkit"
)

// pieces writes doc to w in pieces of n bytes, then closes it.
func pieces(w *io.PipeWriter, doc []byte, n int) {
	for len(doc) > 0 {
		k := min(n, len(doc))
		if _, err := w.Write(doc[:k]); err != nil {
			return
		}
		doc = doc[k:]
	}
	w.Close()
}

func TestBodyReaderSeesWhatBytesReturns(t *testing.T) {
	t.Parallel()
	doc := bytes.Repeat([]byte("0123456789abcdef"), 200_000) // 3.2 MB: many chunks when unannounced
	for _, announced := range []int64{int64(len(doc)), -1} {
		pr, pw := io.Pipe()
		go pieces(pw, doc, 70_001)
		b := newBody(announced, 1<<30)
		go b.fill(pr)
		streamed, err := io.ReadAll(b.reader())
		if err != nil {
			t.Fatalf("announced %d: reading while it arrives: %v", announced, err)
		}
		whole, err := b.bytes()
		if err != nil || !bytes.Equal(whole, doc) || !bytes.Equal(streamed, doc) {
			t.Fatalf("announced %d: got %d and %d bytes (err %v), want %d", announced, len(streamed), len(whole), err, len(doc))
		}
	}
}

// An answer is decoded as it arrives: a broken prefix is found while the
// rest has not been sent.
func TestBodyIsDecodedWhileItArrives(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	pr, pw := io.Pipe()
	defer pw.Close()
	b := newBody(1<<20, 1<<30)
	go b.fill(pr)
	if _, err := pw.Write([]byte(`{"ok":true,"data":{"failures":[{"a":1},{"a":2}`)); err != nil {
		t.Fatal(err)
	}
	decoded := make(chan error, 1)
	go func() { _, _, err := indexObject(b.reader(), "data"); decoded <- err }()
	select {
	case err := <-decoded:
		t.Fatalf("decode ended before the answer did: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	if _, err := pw.Write([]byte(`,{"a":]`)); err != nil {
		t.Fatal(err)
	}
	if err := testkit.Receive(t, ctx, decoded, "the broken element to be found before the answer ends"); err == nil {
		t.Fatal("a broken answer decoded")
	}
}

func TestBodyPastTheCapFailsReaderAndBytes(t *testing.T) {
	t.Parallel()
	for _, announced := range []int64{-1, 100, 5000} {
		b := newBody(announced, 1000)
		go b.fill(bytes.NewReader(make([]byte, 5000)))
		if _, err := io.ReadAll(b.reader()); !errors.Is(err, ErrBodyTooLarge) {
			t.Errorf("announced %d: reader: %v, want the cap's error", announced, err)
		}
		if got, err := b.bytes(); !errors.Is(err, ErrBodyTooLarge) || got != nil {
			t.Errorf("announced %d: bytes: %d bytes, %v", announced, len(got), err)
		}
	}
}

// An answer decoded while it arrives, in pieces of any size, is the answer
// decoded in place: same verdict, same members, views of the same bytes.
func FuzzStreamedDecode(f *testing.F) {
	f.Add([]byte(`{"ok":true,"tool":"t","data":{"runId":"r","failures":[{"a":1},{"b":"x\"]"}],"n":null}}`), uint16(3), true)
	f.Add([]byte(`{"ok":false,"error":{"code":"tool_error","message":"m"},"recoverable":true}`), uint16(1), false)
	f.Add([]byte(`{"ok":true,"data":[1,2,3]} x`), uint16(7), true)
	f.Add([]byte(`{"ok":true,"data":{"a":[[1],[2,[3]]],"b":"\u00e9"}}`), uint16(2), false)
	f.Fuzz(func(t *testing.T, doc []byte, piece uint16, announced bool) {
		want, wantErr := DecodeToolResponse(doc)

		size := int64(-1)
		if announced {
			size = int64(len(doc))
		}
		pr, pw := io.Pipe()
		go pieces(pw, doc, int(piece)%64+1)
		b := newBody(size, 1<<20)
		go b.fill(pr)
		top, data, err := indexObject(b.reader(), "data")
		raw, rerr := b.bytes()
		if rerr != nil {
			t.Fatalf("reading: %v", rerr)
		}
		var got *ToolResponse
		if err == nil {
			got, err = toolResponseOf(raw, top, data)
		}
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("streamed: %v; in place: %v", err, wantErr)
		}
		if err != nil {
			return
		}
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		if !bytes.Equal(gj, wj) || !bytes.Equal(got.Raw, want.Raw) {
			t.Fatalf("streamed %s\nin place %s", gj, wj)
		}
		if !reflect.DeepEqual(got.Members, want.Members) {
			t.Fatalf("data members: %+v, want %+v", got.Members, want.Members)
		}
	})
}
