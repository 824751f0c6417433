"""Admin for organizers. Join secrets are read-only here: use "new link and PIN" on the game
page (``application_revoke_join``) so old phones are logged out properly."""

from django.contrib import admin

from teams.models import Application, Ban, Benefit, Game, Member, Notice, Team


class MemberInline(admin.TabularInline):
    model = Member
    fields = ["nickname", "full_name", "phone", "email"]
    extra = 0


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ["name", "captain", "created_at"]
    search_fields = ["name", "captain__username"]
    autocomplete_fields = ["captain"]
    inlines = [MemberInline]

    def save_model(self, request, obj, form, change):
        from teams.services import name_key

        obj.name = obj.name.strip()
        obj.name_key = name_key(obj.name)
        super().save_model(request, obj, form, change)

    def save_formset(self, request, form, formset, change):
        from teams.services import name_key

        for member in formset.save(commit=False):
            member.nickname = member.nickname.strip()
            member.nickname_key = name_key(member.nickname)
            member.save()
        for member in formset.deleted_objects:
            member.delete()
        formset.save_m2m()


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ["title", "format", "starts_at", "fee", "status", "rated"]
    list_filter = ["format", "status", "rated"]
    search_fields = ["title"]
    date_hierarchy = "starts_at"


@admin.register(Application)
class ApplicationAdmin(admin.ModelAdmin):
    list_display = ["team", "game", "status", "paid", "join_pin", "join_version", "created_at"]
    list_filter = ["status", "paid", "game__format"]
    search_fields = ["team__name", "game__title"]
    readonly_fields = ["join_token", "join_pin", "join_version", "created_at", "updated_at"]
    filter_horizontal = ["members"]
    raw_id_fields = ["game", "team"]


@admin.register(Ban)
class BanAdmin(admin.ModelAdmin):
    list_display = ["team", "until", "reason", "created_by"]
    search_fields = ["team__name", "reason"]
    raw_id_fields = ["team"]


@admin.register(Notice)
class NoticeAdmin(admin.ModelAdmin):
    list_display = ["team", "kind", "game", "created_at"]
    list_filter = ["kind"]
    raw_id_fields = ["team", "game"]


@admin.register(Benefit)
class BenefitAdmin(admin.ModelAdmin):
    list_display = ["team", "game", "place", "percent"]
    raw_id_fields = ["team", "game"]
