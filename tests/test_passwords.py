"""Passwords are stored with Argon2id at the site's parameters; older hashes still log in and are upgraded."""

import pytest
from django.contrib.auth.hashers import PBKDF2PasswordHasher, check_password, identify_hasher, make_password
from django.contrib.auth.models import User
from django.test import Client, override_settings

from config import settings as site

pytestmark = pytest.mark.django_db


def _log_in(username, password):
    return Client().post("/accounts/login/", {"username": username, "password": password})


@override_settings(PASSWORD_HASHERS=site.PASSWORD_HASHERS)
def test_it_stores_a_new_password_as_argon2id_with_19_mib_2_passes_1_lane():
    hashed = make_password("a-long-pass-phrase-42")
    assert hashed.startswith("argon2$argon2id$v=19$m=19456,t=2,p=1$")
    assert check_password("a-long-pass-phrase-42", hashed) and not check_password("a-long-pass-phrase-43", hashed)
    assert identify_hasher(hashed).must_update(hashed) is False


@override_settings(PASSWORD_HASHERS=site.PASSWORD_HASHERS)
def test_an_account_hashed_with_pbkdf2_logs_in_and_is_rehashed_with_argon2id():
    old = PBKDF2PasswordHasher().encode("a-long-pass-phrase-42", PBKDF2PasswordHasher().salt())
    User.objects.create(username="ann", password=old)
    assert _log_in("ann", "a-long-pass-phrase-42").status_code == 302
    assert User.objects.get(username="ann").password.startswith("argon2$argon2id$v=19$m=19456,t=2,p=1$")


@override_settings(PASSWORD_HASHERS=site.PASSWORD_HASHERS)
def test_a_wrong_password_neither_logs_in_nor_touches_the_stored_hash():
    old = PBKDF2PasswordHasher().encode("a-long-pass-phrase-42", PBKDF2PasswordHasher().salt())
    User.objects.create(username="ann", password=old)
    assert _log_in("ann", "not-the-phrase").status_code == 200  # the form again, with its error
    assert User.objects.get(username="ann").password == old
