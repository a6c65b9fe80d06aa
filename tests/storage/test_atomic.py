"""``Store.atomic``: several store calls stored together or not at all."""

import asyncio

import pytest

from storage import NewCampaign, NewSide, Store, open_store
from storage.db import counting_commits
from storage.dialect import INTEGRITY_ERRORS
from tests.storage.campaign_script import MONDAY

GM = 100
RED = NewSide(id="red", name="Red", colour="#cc0000")
BLUE = NewSide(id="blue", name="Blue", colour="#0044cc")


async def _campaign(store: Store) -> int:
    campaign = await store.create_campaign(
        NewCampaign(chat_id=-1, title="Atomic", created_by=GM, creator_name="Gina"), MONDAY
    )
    return campaign.id


async def test_calls_inside_commit_together(store: Store) -> None:
    campaign_id = await _campaign(store)
    with counting_commits() as count:
        async with store.atomic():
            await store.add_side(campaign_id, RED, GM, MONDAY)
            await store.add_side(campaign_id, BLUE, GM, MONDAY)
            # A read inside sees the writes made so far.
            assert [side.id for side in await store.sides(campaign_id)] == ["red", "blue"]
    assert count.commits == 1
    assert [side.id for side in await store.sides(campaign_id)] == ["red", "blue"]


async def test_an_error_inside_keeps_nothing(store: Store) -> None:
    campaign_id = await _campaign(store)

    async def cut_short() -> None:
        async with store.atomic():
            await store.add_side(campaign_id, RED, GM, MONDAY)
            await store.set_prompt(-1, GM, campaign_id, "setup.side", {}, None, MONDAY)
            raise RuntimeError("stop")

    with pytest.raises(RuntimeError, match="stop"):
        await cut_short()
    assert await store.sides(campaign_id) == []
    assert await store.prompt(-1, GM) is None


async def test_a_failed_call_inside_is_undone_alone(store: Store) -> None:
    """A store call that raises inside undoes its own writes; the caller may go on."""
    campaign_id = await _campaign(store)
    async with store.atomic():
        await store.add_side(campaign_id, RED, GM, MONDAY)
        with pytest.raises(INTEGRITY_ERRORS):
            await store.add_side(
                campaign_id, NewSide(id="red", name="Red again", colour="#cc0000"), GM, MONDAY
            )
        await store.add_side(campaign_id, BLUE, GM, MONDAY)
    assert [side.name for side in await store.sides(campaign_id)] == ["Red", "Blue"]


async def test_other_tasks_wait_for_it(store: Store) -> None:
    """Another task's read sees the unit's writes only once it has committed."""
    campaign_id = await _campaign(store)
    seen: list[list[str]] = []
    asked = asyncio.Event()

    async def reader() -> None:
        asked.set()  # the read is asked for at once, while the unit is open
        seen.append([side.id for side in await store.sides(campaign_id)])

    async with store.atomic():
        await store.add_side(campaign_id, RED, GM, MONDAY)
        task = asyncio.create_task(reader())
        await asyncio.wait_for(asked.wait(), 30)
        assert not task.done()
        await store.add_side(campaign_id, BLUE, GM, MONDAY)
    await task
    assert seen == [["red", "blue"]]


async def test_a_cancelled_unit_is_not_found_after_a_restart(database_url: str) -> None:
    store = await open_store(database_url)
    campaign_id = await _campaign(store)

    added = asyncio.Event()

    async def cut() -> None:
        async with store.atomic():
            await store.add_side(campaign_id, RED, GM, MONDAY)
            added.set()
            await asyncio.sleep(3600)

    task = asyncio.create_task(cut())
    await added.wait()  # the side is written inside the unit when it is cut, not before
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await store.close()
    reopened = await open_store(database_url)
    assert await reopened.sides(campaign_id) == []
    await reopened.close()
