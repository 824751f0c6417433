"""The e-mail verification link's token: Django's reset-token machinery with its own salt.

A reset token cannot verify an address and the other way round (different salts), and the
account's activation is part of the hash, so a verification link works once.
"""

from django.contrib.auth.tokens import PasswordResetTokenGenerator


class VerificationTokenGenerator(PasswordResetTokenGenerator):
    key_salt = "core.accounts.tokens.VerificationTokenGenerator"

    def _make_hash_value(self, user, timestamp):
        return f"{super()._make_hash_value(user, timestamp)}{user.is_active}"


verification_token = VerificationTokenGenerator()
