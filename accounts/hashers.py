"""How passwords are stored: Argon2id at OWASP's recommended setting (19 MiB of memory, 2 passes, 1 lane).

Memory-hard, so a stolen table costs an attacker's GPUs what it costs our CPU; and about 20 ms of CPU a login
instead of PBKDF2's 180 ms here, so the hundreds of people who log in within minutes of a study's launch do not
saturate the web processes (bench/load_test.py). Django's own Argon2 defaults ask 100 MiB and 8 lanes (some
170 ms); hashes made with other parameters, or with PBKDF2 before, still verify and are re-hashed with these
at the next login.
"""

from django.contrib.auth.hashers import Argon2PasswordHasher


class Argon2idHasher(Argon2PasswordHasher):
    time_cost = 2
    memory_cost = 19 * 1024  # KiB
    parallelism = 1
