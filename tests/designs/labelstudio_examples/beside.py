"""Put a `labelstudio` export of this platform into a running Label Studio, in a project made with the imported
project's own config, and say what Label Studio stored: each annotation's regions as Label Studio reads them.
Run by hand beside Label Studio (not installed by `make setup`); exits 1 when Label Studio refuses the config or
the tasks, or stores fewer annotations than the export holds.

    python3 -m venv /tmp/ls && /tmp/ls/bin/pip install label-studio==1.23.2
    /tmp/ls/bin/label-studio start --no-browser --port 8090 --username you@example.com --password PASSWORD \\
        --user-token TOKEN        # then allow legacy API tokens in the organization's settings
    manage.py design export BATCH --out OUT --formats labelstudio
    python3 tests/designs/labelstudio_examples/beside.py --url http://127.0.0.1:8090 --token TOKEN \\
        --config tests/designs/labelstudio_examples/html-entity-recognition/config.xml OUT/labelstudio/tasks.json

Standard library only, so any Python runs it.
"""

import argparse
import json
import sys
import urllib.error
import urllib.request


def call(url: str, token: str, method: str, path: str, body: object = None) -> object:
    request = urllib.request.Request(url.rstrip("/") + path, method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": f"Token {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        sys.exit(f"Label Studio refused {method} {path}: {error.code} {error.read().decode()[:1000]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tasks", help="the export's labelstudio/tasks.json")
    parser.add_argument("--config", required=True, help="the labeling config of the project to put them in")
    parser.add_argument("--url", default="http://127.0.0.1:8090")
    parser.add_argument("--token", required=True)
    options = parser.parse_args()
    with open(options.config, encoding="utf-8") as config, open(options.tasks, encoding="utf-8") as tasks_file:
        label_config, tasks = config.read(), json.load(tasks_file)
    project = call(options.url, options.token, "POST", "/api/projects",
                   {"title": options.config.split("/")[-2][:50], "label_config": label_config})
    imported = call(options.url, options.token, "POST", f"/api/projects/{project['id']}/import", tasks)
    given = sum(len(task.get("annotations", [])) for task in tasks)
    print(f"project {project['id']}: {imported['task_count']} tasks, {imported['annotation_count']} annotations "
          f"stored ({given} in the export)")
    listed = call(options.url, options.token, "GET", f"/api/tasks?project={project['id']}")
    for task in listed["tasks"] if isinstance(listed, dict) else listed:
        stored = call(options.url, options.token, "GET", f"/api/tasks/{task['id']}")
        for annotation in stored["annotations"]:
            regions = [f"{result['type']} {result['value'].get('text') or result['value']}"
                       for result in annotation["result"]]
            print(f"  task {stored['id']}, annotation {annotation['id']}: " + "; ".join(regions))
    if imported["annotation_count"] < given:
        sys.exit(1)


if __name__ == "__main__":
    main()
