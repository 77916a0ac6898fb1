-- Other spellings of a city, learnt when an import merges them into the city's row (`San Francsico`
-- → San Francisco): later imports resolve those spellings straight to the row, so re-importing the
-- same files changes nothing. One spelling per country; deleting the city deletes its spellings.
CREATE TABLE "location_spellings" (
    "id" SERIAL NOT NULL,
    "parent_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "location_id" INTEGER NOT NULL,
    CONSTRAINT "location_spellings_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "location_spellings_parent_id_fkey" FOREIGN KEY ("parent_id") REFERENCES "locations"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "location_spellings_location_id_fkey" FOREIGN KEY ("location_id") REFERENCES "locations"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "location_spellings_parent_id_name_key" ON "location_spellings"("parent_id", "name");
CREATE INDEX "location_spellings_location_id_idx" ON "location_spellings"("location_id");
