"""DeleteTable while writers are busy on the table: no write lands after the drop.

A write looks its table up, then writes; a DeleteTable between the two used to drop the items
first and let the write add one back under the dead table id, invisible and never reclaimed.
`ttlstore check` reports such orphans, so the data dir must come out whole.
"""
from __future__ import annotations

import threading
import time

from botocore.exceptions import ClientError

from e2e_util import check_data_dir, create_table, make_client

WRITERS = 4


def test_writes_racing_delete_table_leave_no_orphans(start_server, tmp_path):
    data = tmp_path / "race"
    srv = start_server(data)
    for round_no in range(3):
        table = f"race{round_no}"
        create_table(make_client(srv.endpoint), table)
        stop = threading.Event()
        outcomes: list[str] = []

        def writer(t: int):
            c = make_client(srv.endpoint)
            i = 0
            while not stop.is_set():
                try:
                    c.put_item(TableName=table, Item={"pk": {"S": f"w{t}-{i}"},
                                                      "v": {"S": "x" * 200}})
                except ClientError as e:
                    outcomes.append(e.response["Error"]["Code"])
                    return
                i += 1

        threads = [threading.Thread(target=writer, args=(t,), daemon=True)
                   for t in range(WRITERS)]
        for t in threads:
            t.start()
        time.sleep(0.3)
        make_client(srv.endpoint).delete_table(TableName=table)
        time.sleep(0.2)
        stop.set()
        for t in threads:
            t.join(timeout=30)
            assert not t.is_alive()
        # Every writer ran into the deleted table, and nothing else went wrong.
        assert outcomes == ["ResourceNotFoundException"] * WRITERS, outcomes
    assert srv.stop() == 0
    report = check_data_dir(data)
    assert "0 tables, 0 items" in report, report
