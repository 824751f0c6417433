"""Accounts: captains sign up themselves (verified by e-mail), edit their profile, and organizers
grant the staff roles. Kept in ``core`` beside ``core.roles``: the roles are cross-app, and an
account is what every app's captain, host and organizer share; login, logout and password reset
are Django's own views (``django.contrib.auth.urls``) with the site's templates."""
