import { groundTruthFromJson, type GroundTruth, type GroundTruthJson } from './ground-truth';

const IDS_PER_REQUEST = 256;

/**
 * Ground truth of a simulator in another process, over its side channel
 * (`POST {baseUrl}/_teapot/ground-truth`). Fetch after a run: the fetch would disturb what is measured.
 * Ids the simulator no longer knows (evicted, or never served) are absent from the map.
 */
export async function fetchGroundTruth(baseUrl: string, ids: string[]): Promise<Map<string, GroundTruth>> {
  const truth = new Map<string, GroundTruth>();
  for (let i = 0; i < ids.length; i += IDS_PER_REQUEST) {
    const response = await fetch(`${baseUrl}/_teapot/ground-truth`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ids: ids.slice(i, i + IDS_PER_REQUEST) }),
    });
    if (!response.ok) throw new Error(`ground truth from ${baseUrl}: HTTP ${response.status}`);
    const { data } = (await response.json()) as { data: Array<GroundTruthJson | null> };
    for (const item of data) if (item) truth.set(item.id, groundTruthFromJson(item));
  }
  return truth;
}
