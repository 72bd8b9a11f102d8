#!/usr/bin/env python3
"""The kill test's client for the Todos service, on loopback only.

post:   POSTs todos from CONNECTIONS threads (one keep-alive connection each) until
        SECONDS pass, COUNT are acknowledged, or the server stops answering; appends
        "id<TAB>title" to LOG for every 201, flushed before the next request, so the
        log holds exactly the todos the server acknowledged.
verify: checks every todo in LOG and exits 1 if any is missing or changed: those
        labelled LABEL (this round's) one GET /todos/ID each, the rest through the
        pages of GET /todos (500 a request, so that rounds stay short as the log grows).
"""
import http.client
import json
import sys
import threading
import time


def post(port, log_path, connections, seconds, count, label):
    deadline = time.monotonic() + seconds
    lock = threading.Lock()
    acknowledged = [0]
    log = open(log_path, "a", encoding="utf-8")

    def worker(number):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        sequence = 0
        while time.monotonic() < deadline:
            with lock:
                if acknowledged[0] >= count:
                    return
            title = f"{label} worker {number} todo {sequence}"
            sequence += 1
            try:
                connection.request("POST", "/todos", body=json.dumps({"title": title}),
                                   headers={"Content-Type": "application/json"})
                response = connection.getresponse()
                body = response.read()
            except (OSError, http.client.HTTPException):
                return  # the server is gone (killed): stop
            if response.status != 201:
                return
            todo = json.loads(body)
            if todo.get("title") != title:
                print(f"the server acknowledged {title!r} as {todo!r}", file=sys.stderr)
                sys.exit(1)
            with lock:
                log.write(f"{todo['id']}\t{title}\n")
                log.flush()
                acknowledged[0] += 1

    threads = [threading.Thread(target=worker, args=(n,), daemon=True) for n in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(seconds + 15)
    log.close()
    print(acknowledged[0])


def verify(port, log_path, label):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)

    def get(path):
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.read()

    stored = {}
    after = 0
    while True:
        status, body = get(f"/todos?after={after}&limit=500")
        if status != 200:
            print(f"GET /todos?after={after} answered {status}: {body!r}", file=sys.stderr)
            sys.exit(1)
        page = json.loads(body)
        for todo in page["todos"]:
            stored[todo["id"]] = todo
        if page.get("next") is None:
            break
        after = page["next"]

    lost = 0
    checked = 0
    for line in open(log_path, encoding="utf-8"):
        todo_id, title = line.rstrip("\n").split("\t", 1)
        checked += 1
        if title.startswith(label + " "):
            status, body = get(f"/todos/{todo_id}")
            todo = json.loads(body) if status == 200 else None
        else:
            todo = stored.get(int(todo_id))
        if todo is None:
            print(f"todo {todo_id} ({title!r}) was acknowledged and is gone", file=sys.stderr)
            lost += 1
        elif todo["title"] != title or todo["completed"] is not False:
            print(f"todo {todo_id} changed: acknowledged {title!r}, now {todo!r}", file=sys.stderr)
            lost += 1
    print(f"{checked} checked, {lost} lost or changed")
    sys.exit(1 if lost else 0)


if __name__ == "__main__":
    mode, port, log_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if mode == "post":
        post(port, log_path, connections=int(sys.argv[4]), seconds=float(sys.argv[5]), count=int(sys.argv[6]), label=sys.argv[7])
    elif mode == "verify":
        verify(port, log_path, label=sys.argv[4])
    else:
        sys.exit(f"unknown mode {mode}")
