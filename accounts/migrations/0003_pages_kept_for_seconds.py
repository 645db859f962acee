"""Profile.updated was read only by the pages' version (leaderboard 0012 drops the function)."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0002_updated_for_page_versions"),
        ("leaderboard", "0012_pages_kept_for_seconds"),  # the function that read it goes first
    ]

    operations = [
        migrations.RemoveField(model_name="profile", name="updated"),
    ]
