"""People, languages, join requests, typed-input prompts and edited-in-place messages survive."""

from datetime import UTC, datetime, timedelta

from storage import CampaignSettings, NewCampaign, Store, open_store

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


async def _campaign(store: Store) -> int:
    campaign = await store.create_campaign(
        NewCampaign(chat_id=-100, title="Siege", created_by=1, creator_name="GM", language="ru"),
        T0,
    )
    return campaign.id


async def test_a_person_is_seen_then_keeps_private_chat_and_choices(store: Store) -> None:
    seen = await store.see_person(7, "Anna", "anna", "ru", False, T0)
    assert (seen.can_receive_private, seen.language, seen.telegram_language) == (False, None, "ru")
    opened = await store.see_person(7, "Anna", "anna", "ru", True, T0 + timedelta(minutes=1))
    assert opened.private_started_at == T0 + timedelta(minutes=1)
    await store.set_language(7, "en", T0 + timedelta(minutes=2))
    again = await store.see_person(7, "Anna K", None, "ru", False, T0 + timedelta(minutes=3))
    assert (again.display_name, again.username, again.language) == ("Anna K", None, "en")
    assert again.private_started_at == T0 + timedelta(minutes=1)
    assert await store.person(8) is None
    assert set(await store.people([7, 8])) == {7}


async def test_campaign_language_and_status_message(store: Store) -> None:
    campaign_id = await _campaign(store)
    campaign = await store.campaign(campaign_id)
    assert campaign is not None
    assert (campaign.language, campaign.status_message_id) == ("ru", None)
    await store.set_status_message(campaign_id, 555)
    changed = await store.update_settings(campaign_id, CampaignSettings(language="en"), 1, T0)
    assert (changed.language, changed.status_message_id) == ("en", 555)
    audit = await store.audit_log(campaign_id)
    assert audit[-1].action.value == "settings_changed"


async def test_join_requests_prompts_and_ui_messages_survive_a_restart(database_url: str) -> None:
    store = await open_store(database_url)
    campaign_id = await _campaign(store)
    await store.see_person(7, "Anna", None, None, False, T0)
    await store.set_current_campaign(7, campaign_id, T0)
    first = await store.request_join(campaign_id, 7, "Anna", T0)
    await store.request_join(campaign_id, 7, "Anna K", T0 + timedelta(hours=1))
    await store.request_join(campaign_id, 9, "Boris", T0 + timedelta(minutes=5))
    await store.set_prompt(-100, 1, campaign_id, "time_zone", {"page": 2}, 42, T0)
    await store.remember_ui_message(campaign_id, 7, "orders", 7, 1001, T0)
    await store.remember_ui_message(campaign_id, 7, "orders", 7, 1002, T0 + timedelta(minutes=1))
    await store.close()

    store = await open_store(database_url)
    try:
        requests = await store.join_requests(campaign_id)
        assert [(r.user_id, r.display_name) for r in requests] == [(7, "Anna K"), (9, "Boris")]
        assert requests[0].requested_at == first.requested_at
        prompt = await store.prompt(-100, 1)
        assert prompt is not None
        assert (prompt.field, prompt.data, prompt.message_id) == ("time_zone", {"page": 2}, 42)
        ui = await store.ui_message(campaign_id, 7, "orders")
        assert ui is not None
        assert (ui.chat_id, ui.message_id) == (7, 1002)
        person = await store.person(7)
        assert person is not None
        assert person.current_campaign_id == campaign_id
        assert await store.drop_join_request(campaign_id, 7)
        assert not await store.drop_join_request(campaign_id, 7)
        assert await store.clear_prompt(-100, 1)
        assert await store.prompt(-100, 1) is None
        assert [r.user_id for r in await store.join_requests(campaign_id)] == [9]
    finally:
        await store.close()


async def test_a_removal_is_kept_until_a_gm_lets_the_person_back(database_url: str) -> None:
    store = await open_store(database_url)
    campaign_id = await _campaign(store)
    await store.request_join(campaign_id, 9, "Boris", T0)
    assert await store.join_request(campaign_id, 9) is not None
    removal = await store.record_removal(campaign_id, 9, "Boris", 1, T0 + timedelta(minutes=1))
    assert await store.join_request(campaign_id, 9) is None, "a removal drops the request"
    await store.close()

    store = await open_store(database_url)
    try:
        assert await store.removed_member(campaign_id, 9) == removal
        assert await store.removed_members(campaign_id) == [removal]
        assert (removal.removed_by, removal.removed_at) == (1, T0 + timedelta(minutes=1))
        assert await store.removed_member(campaign_id, 7) is None
        readmitted_at = T0 + timedelta(minutes=5)
        assert await store.clear_removal(campaign_id, 9, 1, readmitted_at)
        assert not await store.clear_removal(campaign_id, 9, 1, readmitted_at)
        assert await store.removed_members(campaign_id) == []
        audit = [e for e in await store.audit_log(campaign_id) if e.action == "member_readmitted"]
        assert [(e.actor, e.at, e.after) for e in audit] == [(1, readmitted_at, None)]
        assert audit[0].before == removal.model_dump(mode="json")
    finally:
        await store.close()


async def test_the_same_screen_remembered_again_is_not_rewritten(store: Store) -> None:
    campaign_id = await _campaign(store)
    first = await store.remember_ui_message(campaign_id, 7, "orders", 7, 1001, T0)
    later = T0 + timedelta(minutes=5)
    same = await store.remember_ui_message(campaign_id, 7, "orders", 7, 1001, later)
    assert same == first
    moved = await store.remember_ui_message(campaign_id, 7, "orders", 7, 1002, later)
    assert (moved.message_id, moved.updated_at) == (1002, later)
