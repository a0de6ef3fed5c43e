"""Protocol-level stand-ins for the crowd providers, for tests, the demo and local development.

`emulators.mturk` speaks MTurk's JSON wire protocol (boto3 runs against it unpatched) and `emulators.prolific`
Prolific's researcher API v1, each with the provider's states and rules as its reference writes them, the
unhappy ones included (`emulators.faults`: throttling, errors, and work done with its answer lost). Nothing in
the product imports this package (tests/test_architecture.py checks it); `manage.py mturk_emulator` and
`manage.py prolific_emulator` (the demo app's) serve them for manual runs.
"""
