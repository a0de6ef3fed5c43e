"""Roles (organizer, annotator, researcher) as Django groups, and where each role lands."""

from django.apps import AppConfig
from django.db.models.signals import post_migrate


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts and roles"

    def ready(self):
        from accounts.roles import grant_organizer_permissions

        # After every migrate, as Django itself creates the permissions: new models get theirs too.
        post_migrate.connect(grant_organizer_permissions, dispatch_uid="accounts.grant_organizer_permissions")
