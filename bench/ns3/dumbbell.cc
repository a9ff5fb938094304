// Dumbbell benchmark scenario for ns-3 3.37 (reference side of bench/run.py).
//
//   s_i --access-- r1 ==bottleneck== r2 --access-- d_i      i = 0..N-1
//
// N TCP bulk flows (NewReno, or --cc=cubic|vegas|westwood|bbr); flow i
// starts at i*spacing. The r1->r2 device
// queue (DropTail, MaxSize packets) is the only queue that should drop.
// Root queue discs are removed so the NetDevice queue is the only buffer
// (Ipv4AddressHelper::Assign installs a default qdisc; we uninstall it).
//
// Prints one JSON object on stdout: per-flow goodput (in-order payload bytes
// received by the PacketSink / (duration - start)), drops per queue, and the
// wall time spent inside Simulator::Run (the engine-only time).
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

using namespace ns3;

namespace
{
uint64_t g_bottleneckDrops = 0;
uint64_t g_otherDrops = 0;
uint64_t g_bottleneckDequeued = 0;

void BottleneckDrop(Ptr<const Packet>) { ++g_bottleneckDrops; }
void OtherDrop(Ptr<const Packet>) { ++g_otherDrops; }
void BottleneckDequeue(Ptr<const Packet>) { ++g_bottleneckDequeued; }

// --traceFlow=K: flow K's cwnd, congestion-state and TCP-state changes on
// stderr, for side-by-side debugging against the other simulators.
void CwndChange(uint32_t, uint32_t now)
{
    std::fprintf(stderr, "%.6f cwnd %u\n", Simulator::Now().GetSeconds(), now);
}
void StateChange(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    std::fprintf(stderr, "%.6f state %s\n", Simulator::Now().GetSeconds(),
                 TcpSocketState::TcpCongStateName[now]);
}
void TcpStateChange(TcpSocket::TcpStates_t, TcpSocket::TcpStates_t now)
{
    std::fprintf(stderr, "%.6f tcp %s\n", Simulator::Now().GetSeconds(),
                 TcpSocket::TcpStateName[now]);
}
void HookTraced(Ptr<Socket> sock)
{
    sock->TraceConnectWithoutContext("CongestionWindow", MakeCallback(&CwndChange));
    sock->TraceConnectWithoutContext("CongState", MakeCallback(&StateChange));
    sock->TraceConnectWithoutContext("State", MakeCallback(&TcpStateChange));
}

// Last TCP state of each sender socket, reported so that a flow that never
// got going (e.g. SYN lost repeatedly) is visible in the output.
std::vector<std::string> g_lastState;
void RecordState(uint32_t flow, TcpSocket::TcpStates_t, TcpSocket::TcpStates_t now)
{
    g_lastState[flow] = TcpSocket::TcpStateName[now];
}
// Per-flow count of entries into loss recovery by timeout (CA_LOSS) and by
// fast retransmit (CA_RECOVERY), comparable to cdmasim's timeouts and
// fast_recoveries and to ns-2's nrexmit_.
std::vector<uint32_t> g_timeouts;
std::vector<uint32_t> g_fastRecoveries;
void RecordCongState(uint32_t flow,
                     TcpSocketState::TcpCongState_t,
                     TcpSocketState::TcpCongState_t now)
{
    if (now == TcpSocketState::CA_LOSS)
    {
        ++g_timeouts[flow];
    }
    else if (now == TcpSocketState::CA_RECOVERY)
    {
        ++g_fastRecoveries[flow];
    }
}

int g_traceFlow = -1;

// --cc: the congestion control of every sender. Only the TypeId is chosen
// here; each algorithm's parameters keep their ns-3 defaults unless given on
// the command line (--ns3::TcpCubic::HyStart=false etc.; bench/sims.py
// passes the values it matches against cdmasim). Westwood is 3.37's
// TcpWestwood class, Westwood+ only with ProtocolType=WestwoodPlus.
bool CcTypeId(const std::string& cc, TypeId& tid)
{
    if (cc == "newreno")
        tid = TcpNewReno::GetTypeId();
    else if (cc == "cubic")
        tid = TcpCubic::GetTypeId();
    else if (cc == "vegas")
        tid = TcpVegas::GetTypeId();
    else if (cc == "westwood")
        tid = TcpWestwood::GetTypeId();
    else if (cc == "bbr")
        tid = TcpBbr::GetTypeId();
    else
        return false;
    return true;
}

void HookState(Ptr<BulkSendApplication> app, uint32_t flow)
{
    // One nanosecond after Start the socket exists and Connect has sent the
    // SYN; no answer can have arrived yet.
    g_lastState[flow] = TcpSocket::TcpStateName[TcpSocket::SYN_SENT];
    Ptr<Socket> sock = app->GetSocket();
    sock->TraceConnectWithoutContext("State", MakeBoundCallback(&RecordState, flow));
    sock->TraceConnectWithoutContext("CongState", MakeBoundCallback(&RecordCongState, flow));
    if (static_cast<int>(flow) == g_traceFlow)
    {
        HookTraced(sock);
    }
}

// Every queue of every device gets a drop counter, so "only the bottleneck
// drops" is checked rather than assumed.
void WatchDevice(Ptr<NetDevice> dev, bool bottleneck)
{
    Ptr<Queue<Packet>> q = DynamicCast<PointToPointNetDevice>(dev)->GetQueue();
    if (bottleneck)
    {
        q->TraceConnectWithoutContext("Drop", MakeCallback(&BottleneckDrop));
        q->TraceConnectWithoutContext("Dequeue", MakeCallback(&BottleneckDequeue));
    }
    else
    {
        q->TraceConnectWithoutContext("Drop", MakeCallback(&OtherDrop));
    }
}
} // namespace

int main(int argc, char* argv[])
{
    uint32_t flows = 10;
    double duration = 60.0;
    double spacing = 0.010;
    uint32_t bottleneckQueue = 100;
    uint32_t accessQueue = 1000;
    std::string bottleneckRate = "10Mbps";
    std::string bottleneckDelay = "20ms";
    std::string accessRate = "100Mbps";
    std::string accessDelay = "1ms";
    uint32_t mss = 1460;
    uint32_t seed = 1;
    uint32_t rcvBuf = 1 << 20;
    int traceFlow = -1;
    std::string cc = "newreno";

    // TCP configuration, set before cmd.Parse so that --ns3::X::Y=value on the
    // command line still overrides it. Names and defaults checked with
    // --PrintAttributes=ns3::TcpSocket / ns3::TcpSocketBase / ns3::TcpL4Protocol
    // on the installed 3.37 build (defaults there: TcpCubic, TcpPrrRecovery,
    // InitialCwnd 10, DelAckCount 2, Sack and Timestamp on, 128 KiB buffers).
    // 3.37 defaults to PRR recovery; classic (RFC 6582 style) matches ns-2 NewReno.
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(8 << 20));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    // A receive buffer above 64 KiB needs window scaling to be advertised; the option
    // only rides on SYNs, so data segments stay 1460 + 40 = 1500 bytes.
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(1.0)));

    CommandLine cmd(__FILE__);
    cmd.AddValue("flows", "number of bulk TCP flows", flows);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("spacing", "start spacing between flows (s)", spacing);
    cmd.AddValue("bottleneckQueue", "r1->r2 DropTail limit (packets)", bottleneckQueue);
    cmd.AddValue("accessQueue", "access DropTail limit (packets)", accessQueue);
    cmd.AddValue("bottleneckRate", "bottleneck rate", bottleneckRate);
    cmd.AddValue("bottleneckDelay", "bottleneck one-way delay", bottleneckDelay);
    cmd.AddValue("accessRate", "access rate", accessRate);
    cmd.AddValue("accessDelay", "access one-way delay", accessDelay);
    cmd.AddValue("mss", "TCP segment payload (bytes)", mss);
    cmd.AddValue("seed", "RNG run number", seed);
    cmd.AddValue("traceFlow", "print this flow's cwnd/state changes on stderr", traceFlow);
    cmd.AddValue("rcvBuf", "receiver buffer (bytes); the advertised window", rcvBuf);
    cmd.AddValue("cc", "congestion control: newreno, cubic, vegas, westwood, bbr", cc);
    cmd.Parse(argc, argv);
    TypeId ccTid;
    if (!CcTypeId(cc, ccTid))
    {
        std::fprintf(stderr, "unknown --cc=%s (newreno, cubic, vegas, westwood, bbr)\n", cc.c_str());
        return 2;
    }
    // Set after Parse: --cc is the one switch for the algorithm (a
    // --ns3::TcpL4Protocol::SocketType on the command line is overridden).
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(ccTid));
    RngSeedManager::SetRun(seed);
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(rcvBuf));
    g_traceFlow = traceFlow;

    NodeContainer senders;
    senders.Create(flows);
    NodeContainer receivers;
    receivers.Create(flows);
    NodeContainer routers;
    routers.Create(2);

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue(accessRate));
    access.SetChannelAttribute("Delay", StringValue(accessDelay));
    access.SetQueue("ns3::DropTailQueue<Packet>",
                    "MaxSize",
                    QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, accessQueue)));
    // Without flow control the traffic-control layer hands every packet to the
    // device and the device queue itself tail-drops (its "Drop" trace). With
    // flow control on and no qdisc, 3.37 drops at the traffic-control layer
    // instead whenever the device queue is stopped.
    access.DisableFlowControl();

    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue(bottleneckRate));
    bottleneck.SetChannelAttribute("Delay", StringValue(bottleneckDelay));
    bottleneck.SetQueue("ns3::DropTailQueue<Packet>",
                        "MaxSize",
                        QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, bottleneckQueue)));
    bottleneck.DisableFlowControl();

    InternetStackHelper stack;
    stack.InstallAll();

    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.252");
    NetDeviceContainer all;

    NetDeviceContainer core = bottleneck.Install(routers.Get(0), routers.Get(1));
    addr.Assign(core);
    addr.NewNetwork();
    all.Add(core);

    std::vector<Ipv4Address> sinkAddr(flows);
    for (uint32_t i = 0; i < flows; ++i)
    {
        NetDeviceContainer left = access.Install(senders.Get(i), routers.Get(0));
        addr.Assign(left);
        addr.NewNetwork();
        NetDeviceContainer right = access.Install(routers.Get(1), receivers.Get(i));
        Ipv4InterfaceContainer ifs = addr.Assign(right);
        addr.NewNetwork();
        sinkAddr[i] = ifs.GetAddress(1);
        all.Add(left);
        all.Add(right);
    }
    // No queue discs: the device DropTail queues are the only buffers, and
    // drops are counted at the device queue (its "Drop" trace source).
    // Ipv4AddressHelper::Assign only installs its default qdisc on devices
    // that have a NetDeviceQueueInterface, which DisableFlowControl removes;
    // check rather than call Uninstall blindly (3.37's Uninstall on a device
    // without a root qdisc dereferences a null pointer).
    uint32_t qdiscsRemoved = 0;
    for (uint32_t d = 0; d < all.GetN(); ++d)
    {
        Ptr<NetDevice> dev = all.Get(d);
        Ptr<TrafficControlLayer> tc = dev->GetNode()->GetObject<TrafficControlLayer>();
        if (tc && tc->GetRootQueueDiscOnDevice(dev))
        {
            tc->DeleteRootQueueDiscOnDevice(dev);
            ++qdiscsRemoved;
        }
    }

    WatchDevice(core.Get(0), true); // r1 -> r2
    for (uint32_t d = 1; d < all.GetN(); ++d)
    {
        WatchDevice(all.Get(d), false);
    }

    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    const uint16_t port = 5000;
    std::vector<Ptr<PacketSink>> sinks(flows);
    std::vector<double> starts(flows);
    g_lastState.assign(flows, "CLOSED");
    g_timeouts.assign(flows, 0);
    g_fastRecoveries.assign(flows, 0);
    for (uint32_t i = 0; i < flows; ++i)
    {
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sa = sinkHelper.Install(receivers.Get(i));
        sa.Start(Seconds(0.0));
        sinks[i] = DynamicCast<PacketSink>(sa.Get(0));

        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(sinkAddr[i], port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0)); // unbounded
        bulk.SetAttribute("SendSize", UintegerValue(mss));
        ApplicationContainer ba = bulk.Install(senders.Get(i));
        starts[i] = i * spacing;
        ba.Start(Seconds(starts[i]));
        Simulator::Schedule(Seconds(starts[i]) + NanoSeconds(1),
                            &HookState,
                            DynamicCast<BulkSendApplication>(ba.Get(0)),
                            i);
    }

    Simulator::Stop(Seconds(duration));
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    auto t1 = std::chrono::steady_clock::now();
    double engine = std::chrono::duration<double>(t1 - t0).count();
    uint64_t events = Simulator::GetEventCount();

    std::printf("{\"simulator\": \"ns-3.37\", \"cc\": \"%s\", \"flows\": %u, \"duration_s\": %.6f,\n",
                cc.c_str(), flows, duration);
    std::printf(" \"engine_s\": %.6f, \"events\": %llu,\n", engine, (unsigned long long)events);
    std::printf(" \"bottleneck_drops\": %llu, \"other_drops\": %llu, \"bottleneck_dequeued\": %llu,\n",
                (unsigned long long)g_bottleneckDrops,
                (unsigned long long)g_otherDrops,
                (unsigned long long)g_bottleneckDequeued);
    std::printf(" \"qdiscs_removed\": %u,\n", qdiscsRemoved);
    std::printf(" \"flow_start_s\": [");
    for (uint32_t i = 0; i < flows; ++i)
    {
        std::printf("%s%.6f", i ? ", " : "", starts[i]);
    }
    std::printf("],\n \"sender_state\": [");
    for (uint32_t i = 0; i < flows; ++i)
    {
        std::printf("%s\"%s\"", i ? ", " : "", g_lastState[i].c_str());
    }
    std::printf("],\n \"timeouts\": [");
    for (uint32_t i = 0; i < flows; ++i)
    {
        std::printf("%s%u", i ? ", " : "", g_timeouts[i]);
    }
    std::printf("],\n \"fast_recoveries\": [");
    for (uint32_t i = 0; i < flows; ++i)
    {
        std::printf("%s%u", i ? ", " : "", g_fastRecoveries[i]);
    }
    std::printf("],\n \"rx_bytes\": [");
    for (uint32_t i = 0; i < flows; ++i)
    {
        std::printf("%s%llu", i ? ", " : "", (unsigned long long)sinks[i]->GetTotalRx());
    }
    std::printf("],\n \"goodput_bps\": [");
    for (uint32_t i = 0; i < flows; ++i)
    {
        double bps = sinks[i]->GetTotalRx() * 8.0 / (duration - starts[i]);
        std::printf("%s%.3f", i ? ", " : "", bps);
    }
    std::printf("]}\n");
    Simulator::Destroy();
    return 0;
}
