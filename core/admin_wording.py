"""Django admin phrases the site's catalogue re-translates, so Russian reads right whatever the
model's name.

Django's Russian admin puts a model's name into sentences that need the accusative or a
masculine verb: «Выберите %s для изменения», «Добавить %(name)s», «{name} … был успешно
изменен». With feminine names that reads «Выберите игра», «ДОБАВИТЬ ИГРА», «Команда … был
изменен», and no single form of «игра» fits every sentence (nominative, accusative and genitive
are all needed). So the models keep their names in the nominative (``verbose_name``) and
``locale/ru/LC_MESSAGES/django.po`` gives these phrases forms where the name stands alone,
after a colon or in brackets («Выберите, что изменить: игра», «Добавить: игра», «Объект
«Весна» (игра) изменён»). The project's catalogue wins over Django's (``LOCALE_PATHS``).

The list below only keeps the msgids in the sources, so ``make messages`` does not mark their
entries obsolete; nothing calls it.
"""

from django.utils.translation import gettext_noop, ngettext_lazy

ADMIN_PHRASES = [
    gettext_noop("Select %s to change"),
    gettext_noop("Select %s to view"),
    gettext_noop("Select %s"),
    gettext_noop("Add %s"),
    gettext_noop("Change %s"),
    gettext_noop("View %s"),
    gettext_noop("Add %(name)s"),
    gettext_noop("Add another %(verbose_name)s"),
    gettext_noop("Cannot delete %(name)s"),
    gettext_noop("Delete selected %(verbose_name_plural)s"),
    gettext_noop("Successfully deleted %(count)d %(items)s."),
    gettext_noop("Added {name} “{object}”."),
    gettext_noop("Changed {fields} for {name} “{object}”."),
    gettext_noop("Deleted {name} “{object}”."),
    gettext_noop("The {name} “{obj}” was added successfully."),
    gettext_noop("The {name} “{obj}” was added successfully. You may add another {name} below."),
    gettext_noop("The {name} “{obj}” was changed successfully. You may edit it again below."),
    gettext_noop("The {name} “{obj}” was changed successfully. You may add another {name} below."),
    gettext_noop("The {name} “{obj}” was changed successfully."),
    gettext_noop("The %(name)s “%(obj)s” was deleted successfully."),
    gettext_noop("%(name)s with ID “%(key)s” doesn’t exist. Perhaps it was deleted?"),
    gettext_noop("Deleting the %(object_name)s '%(escaped_object)s' would result in deleting "
                 "related objects, but your account doesn't have permission to delete the "
                 "following types of objects:"),
    gettext_noop("Deleting the %(object_name)s '%(escaped_object)s' would require deleting the "
                 "following protected related objects:"),
    gettext_noop('Are you sure you want to delete the %(object_name)s "%(escaped_object)s"? '
                 "All of the following related items will be deleted:"),
    gettext_noop("Deleting the selected %(objects_name)s would result in deleting related "
                 "objects, but your account doesn't have permission to delete the following "
                 "types of objects:"),
    gettext_noop("Deleting the selected %(objects_name)s would require deleting the following "
                 "protected related objects:"),
    gettext_noop("Are you sure you want to delete the selected %(objects_name)s? All of the "
                 "following objects and their related items will be deleted:"),
    gettext_noop("%(model_name)s with this %(field_label)s already exists."),
    gettext_noop("%(model_name)s with this %(field_labels)s already exists."),
    ngettext_lazy("%(count)s %(name)s was changed successfully.",
                  "%(count)s %(name)s were changed successfully.", "count"),
]
